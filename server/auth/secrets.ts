import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

/** A new client token: 256 random bits, URL-safe. */
export function generateToken(): string {
  return `pk_${randomBytes(32).toString('base64url')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The data directory holds the token and owner secret: only this user may enter it. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Reads a secret file, creating it (mode 0600) on first use. A file readable by others is tightened, since any
 * local user who reads the owner secret could mint owner logins.
 */
export function loadOrCreateSecret(file: string, generate: () => string): string {
  const existing = readSecret(file);
  if (existing) return existing;
  const value = generate();
  try {
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // Another process (a CLI started at the same moment) created it first: use theirs. Security: an empty file
  // (truncated, or touched by hand) must never yield an empty secret — anyone could sign owner logins with it.
  const theirs = readSecret(file);
  if (theirs) return theirs;
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}

/** The secret in `file`, tightening its mode first; undefined when the file is missing or empty. */
function readSecret(file: string): string | undefined {
  try {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) chmodSync(file, 0o600);
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

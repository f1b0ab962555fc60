import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, generateToken, loadOrCreateSecret, sha256 } from '../../../server/auth/secrets.js';

describe('secrets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pincer-secrets-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const mode = (file: string) => statSync(file).mode & 0o777;

  it.skipIf(process.platform === 'win32')('creates a missing secret file with mode 0600', () => {
    const file = join(dir, 'token');
    expect(loadOrCreateSecret(file, () => 'generated-secret')).toBe('generated-secret');
    expect(readFileSync(file, 'utf8')).toBe('generated-secret\n');
    expect(mode(file)).toBe(0o600);
  });

  it('returns the same value on the second call without generating again', () => {
    const file = join(dir, 'token');
    let generated = 0;
    const generate = () => `secret-${++generated}`;
    expect(loadOrCreateSecret(file, generate)).toBe('secret-1');
    expect(loadOrCreateSecret(file, generate)).toBe('secret-1');
    expect(generated).toBe(1);
  });

  it.skipIf(process.platform === 'win32')('tightens a file others can read (0644) to 0600 and keeps its value', () => {
    const file = join(dir, 'owner-secret');
    writeFileSync(file, '  existing-secret \n', { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(loadOrCreateSecret(file, () => 'unused')).toBe('existing-secret');
    expect(mode(file)).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')('never returns an empty secret from an empty file: it writes a new one', () => {
    const file = join(dir, 'owner-secret');
    writeFileSync(file, '\n', { mode: 0o644 });
    expect(loadOrCreateSecret(file, () => 'fresh-secret')).toBe('fresh-secret');
    expect(readFileSync(file, 'utf8')).toBe('fresh-secret\n');
    expect(mode(file)).toBe(0o600);
    expect(loadOrCreateSecret(file, () => 'other')).toBe('fresh-secret');
  });

  it.skipIf(process.platform === 'win32')('makes the data directory private (0700)', () => {
    const dataDir = join(dir, 'data');
    ensurePrivateDir(dataDir);
    expect(existsSync(dataDir)).toBe(true);
    expect(mode(dataDir)).toBe(0o700);
  });

  it.skipIf(process.platform === 'win32')('makes every folder it creates on the way private', () => {
    const deep = join(dir, 'a', 'b', 'data');
    ensurePrivateDir(deep);
    expect([join(dir, 'a'), join(dir, 'a', 'b'), deep].map(mode)).toEqual([0o700, 0o700, 0o700]);
  });

  it.skipIf(process.platform === 'win32')('writes a secret 0600 even in a folder others can enter (one the user made)', () => {
    chmodSync(dir, 0o755);
    ensurePrivateDir(dir);
    const file = join(dir, 'token');
    loadOrCreateSecret(file, () => 'generated');
    expect(mode(file)).toBe(0o600);
  });

  it('hashes with SHA-256 in hex, so stored hashes match across versions', () => {
    expect(sha256('pk_example')).toBe(createHash('sha256').update('pk_example').digest('hex'));
    expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('generates distinct URL-safe tokens of 256 bits', () => {
    const a = generateToken();
    const b = generateToken();
    expect(a).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });
});

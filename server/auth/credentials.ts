import { createHmac, hash as digestOf, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_CLIENT, OWNER } from '../store/clients.js';
import { ClientExistsError, type Store } from '../store/index.js';
import { ensurePrivateDir, generateToken, loadOrCreateSecret, sha256 } from './secrets.js';

export { DEFAULT_CLIENT, OWNER };
export const SESSION_COOKIE = 'pincer_session';

const LOGIN_CODE_TTL_MS = 15 * 60_000;
const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** Tokens whose hash is kept between requests: more than the clients a machine has. */
const KNOWN_TOKEN_HASHES = 256;
/** Client names appear in URLs, logs and the UI. */
export const CLIENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Why a client name cannot be issued: a malformed name, a reserved one, or one an active client holds. */
export class ClientNameError extends Error {
  override readonly name = 'ClientNameError';
  constructor(
    readonly reason: 'invalid' | 'reserved' | 'taken',
    message: string,
  ) {
    super(message);
  }
}

/** A client just issued: the only moment its token exists in the clear. */
export interface IssuedClient {
  name: string;
  token: string;
  created_at: string;
  /** The name an earlier, revoked holder's records moved to (ClientStore.add). */
  archived_as?: string;
}

export interface CredentialsOptions {
  dataDir: string;
  store: Store;
  /** PINCER_TOKEN, when given, replaces the generated default token. */
  token?: string | undefined;
}

/**
 * Client tokens and the owner's login machinery, kept apart on purpose: login codes are signed with an owner
 * secret that no client ever sees, so holding a client token never leads to an owner session.
 */
export class Credentials {
  readonly defaultToken: string;
  /** Where the default token comes from: PINCER_TOKEN, or the file it was generated into. */
  readonly defaultTokenSource: { kind: 'env' } | { kind: 'file'; file: string };
  readonly #defaultTokenHash: Buffer;
  readonly #ownerSecret: Buffer;
  readonly #knownSecrets: readonly string[];
  readonly #store: Store;
  readonly #lastTouched = new Map<string, number>();
  /**
   * Hashes of tokens that belonged to a client when last presented, so a client's every request is not hashed again
   * (the hash was most of what authenticating a tool call cost). Whether the token is still valid is asked each time; a token that
   * matched nothing never enters, so a peer trying tokens cannot fill it.
   */
  readonly #knownTokenHashes = new Map<string, Buffer>();

  constructor(options: CredentialsOptions) {
    ensurePrivateDir(options.dataDir);
    this.#store = options.store;
    const tokenFile = join(options.dataDir, 'token');
    this.defaultToken = options.token ?? loadOrCreateSecret(tokenFile, generateToken);
    this.defaultTokenSource = options.token !== undefined ? { kind: 'env' } : { kind: 'file', file: tokenFile };
    this.#defaultTokenHash = digestOf('sha256', this.defaultToken, 'buffer');
    const ownerSecret = loadOrCreateSecret(join(options.dataDir, 'owner-secret'), () => randomBytes(32).toString('hex'));
    this.#ownerSecret = Buffer.from(ownerSecret, 'hex');
    this.#knownSecrets = [this.defaultToken, ownerSecret];
  }

  /**
   * The secrets held here in the clear, for redaction by value: the default token (PINCER_TOKEN can be any text) and
   * the owner secret. Named tokens are kept as hashes only; they are found by their `pk_` shape.
   */
  knownSecrets(): readonly string[] {
    return this.#knownSecrets;
  }

  /** The client a presented token belongs to, or undefined. */
  clientForToken(token: string): string | undefined {
    const hash = this.#knownTokenHashes.get(token) ?? digestOf('sha256', token, 'buffer');
    // Compared as hashes in constant time: equal lengths, and no timing signal about the default token.
    let name: string | undefined = DEFAULT_CLIENT;
    if (!timingSafeEqual(hash, this.#defaultTokenHash)) {
      // Looked up by hash: the database never holds a usable token, and the lookup leaks nothing about it.
      name = this.#store.clients.findByTokenHash(hash.toString('hex'));
      if (name) this.#touch(name);
    }
    if (!name) this.#knownTokenHashes.delete(token);
    else if (!this.#knownTokenHashes.has(token)) {
      if (this.#knownTokenHashes.size >= KNOWN_TOKEN_HASHES) this.#knownTokenHashes.clear();
      this.#knownTokenHashes.set(token, hash);
    }
    return name;
  }

  /** Issues a named client token (`pincer token create`); the token is shown once and only its hash is kept. */
  createClient(name: string): string {
    return this.issueClient(name).token;
  }

  /** Issues a named client token and says when; throws ClientNameError for a name that cannot be used. */
  issueClient(name: string): IssuedClient {
    if (!CLIENT_NAME_PATTERN.test(name)) {
      throw new ClientNameError(
        'invalid',
        `Client names are 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit; got ${JSON.stringify(name)}.`,
      );
    }
    if (name === DEFAULT_CLIENT || name === OWNER) throw new ClientNameError('reserved', `"${name}" is reserved; choose another client name.`);
    const token = generateToken();
    try {
      const info = this.#store.clients.add(name, sha256(token), token.slice(-4));
      const issued: IssuedClient = { name, token, created_at: info.created_at };
      if (info.archived_as !== undefined) issued.archived_as = info.archived_as;
      return issued;
    } catch (error) {
      // The store is where a taken name is found (in the same statement that writes it).
      if (error instanceof ClientExistsError) throw new ClientNameError('taken', error.message);
      throw error;
    }
  }

  /** Revokes a named client's token; false when no active client has that name. Its next request is refused. */
  revokeClient(name: string): boolean {
    this.#lastTouched.delete(name);
    return this.#store.clients.revoke(name);
  }

  /**
   * Which issue of a client's token is active: its creation time, or undefined once revoked. A stream opened with
   * one issue ends when this changes, so a revoked (or revoked and re-issued) token stops seeing events.
   */
  clientIssue(name: string): string | undefined {
    if (name === DEFAULT_CLIENT) return DEFAULT_CLIENT;
    const info = this.#store.clients.get(name);
    return info && info.revoked_at === null ? info.created_at : undefined;
  }

  /** A one-time code for `/auth?code=`: `nonce.expiry.signature`. */
  createLoginCode(now = Date.now()): string {
    const nonce = randomBytes(18).toString('base64url');
    const expires = (now + LOGIN_CODE_TTL_MS).toString(36);
    return `${nonce}.${expires}.${this.#sign(`login:${nonce}:${expires}`)}`;
  }

  /** Spends a login code and opens an owner session; the reason when the code is not good. */
  redeemLoginCode(code: string, now = Date.now()): { session: string; maxAgeS: number } | { problem: string } {
    const [nonce, expires, signature, extra] = code.split('.');
    if (!nonce || !expires || !signature || extra !== undefined) return { problem: 'This login link is malformed.' };
    const expected = Buffer.from(this.#sign(`login:${nonce}:${expires}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { problem: 'This login link is not valid for this gateway.' };
    }
    const expiresAt = parseInt(expires, 36);
    if (!(expiresAt > now)) return { problem: 'This login link has expired.' };
    if (!this.#store.owner.spendLoginCode(nonce, expiresAt)) return { problem: 'This login link has already been used.' };
    this.#store.owner.purgeExpired(now);
    const session = randomBytes(32).toString('base64url');
    this.#store.owner.addSession(sha256(session), now + SESSION_TTL_MS, now);
    return { session, maxAgeS: SESSION_TTL_MS / 1000 };
  }

  isOwnerSession(session: string, now = Date.now()): boolean {
    return this.#store.owner.hasSession(sha256(session), now);
  }

  endOwnerSession(session: string): void {
    this.#store.owner.removeSession(sha256(session));
  }

  #sign(text: string): string {
    return createHmac('sha256', this.#ownerSecret).update(text).digest('base64url');
  }

  /** last_used_at is for people; writing it on every request would cost a disk write per call. */
  #touch(name: string): void {
    const now = Date.now();
    if (now - (this.#lastTouched.get(name) ?? 0) < 60_000) return;
    this.#lastTouched.set(name, now);
    this.#store.clients.touch(name, now);
  }
}

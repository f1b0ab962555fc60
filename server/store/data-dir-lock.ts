import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isSameProcess, processStartTime } from '../process/proc.js';
import { VERSION } from '../version.js';

/**
 * One gateway per data directory. Start-up recovery (killing what the process ledger lists, cancelling open calls
 * and approvals) is right only when no other gateway is using the folder: run beside a live one, it would cancel
 * that one's calls. So a gateway takes the folder's lock before it recovers anything, and holds it until it stops.
 *
 * The exclusion is an OS file lock — SQLite's (fcntl on POSIX, LockFileEx on Windows) on the empty file `lock.db`,
 * held as an open `BEGIN IMMEDIATE` — because the kernel drops it however the process ends (close, a signal, a
 * crash, kill -9): no stale lock can block a start, no pid can be mistaken after reuse, and two gateways starting at
 * the same instant cannot both win. Beside it, `lock` says who holds the folder (pid, start time, address), written
 * by the holder only and replaced atomically, so a second start can say whom to stop and a CLI command can find the
 * running gateway. Nothing ever writes to `lock.db`; it stays empty.
 *
 * Caution: POSIX drops every lock a process has on a file when that process closes *any* descriptor of it, so
 * nothing in the gateway's process may open `lock.db` other than through SQLite (which knows not to).
 */

export const LOCK_FILE = 'lock';
export const LOCK_DB = 'lock.db';

/** Who holds a data directory, as its `lock` file says. */
export interface LockHolder {
  pid: number;
  /** The holder's processStartTime: with the pid, it names one process even after the pid is reused. */
  start?: string;
  /** Where it answers; absent while it starts (the lock is taken before the port is opened). */
  url?: string;
  version?: string;
  /** When it took the lock (ISO time). */
  since: string;
}

/** The folder is in use by another gateway (`holder`, when its `lock` file could be read). */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(`the data folder ${dataDir} is in use by ${describeHolder(holder)}`);
    this.name = 'DataDirInUseError';
  }
}

/** "the gateway pid 123 on http://127.0.0.1:7800", for messages. */
export function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'another gateway (starting, or one that does not say who it is)';
  return `the gateway pid ${holder.pid} ${holder.url ? `on ${holder.url}` : '(still starting: its port is not open yet)'}`;
}

export interface LockOptions {
  /** A prebuilt better-sqlite3 addon (the Electron build). */
  nativeBinding?: string;
}

/** How long a start waits for a holder that is only passing (a CLI command checking the lock, a racer giving up). */
const ACQUIRE_WAIT_MS = 1000;
const RETRY_MS = 20;

export class DataDirLock {
  readonly #db: Database.Database;
  readonly #file: string;
  readonly #record: LockHolder & { instance: string };
  #released = false;

  private constructor(db: Database.Database, file: string, record: LockHolder & { instance: string }) {
    this.#db = db;
    this.#file = file;
    this.#record = record;
  }

  /**
   * Takes the data directory's lock, or throws DataDirInUseError having changed nothing. A holder that is only
   * passing (a CLI command probing the lock) is waited for briefly; a gateway that holds it is named at once.
   */
  static acquire(dataDir: string, options: LockOptions = {}): DataDirLock {
    const db = openLockDb(dataDir, options, true)!;
    try {
      const deadline = Date.now() + ACQUIRE_WAIT_MS;
      while (!tryLock(db)) {
        const holder = readHolder(dataDir);
        if (holder || Date.now() >= deadline) throw new DataDirInUseError(dataDir, holder);
        sleepSync(RETRY_MS);
      }
      const start = processStartTime(process.pid);
      const record = {
        pid: process.pid,
        ...(start !== undefined && { start }),
        version: VERSION,
        since: new Date().toISOString(),
        // Tells this lock from another one of the same process (two gateways in one process, one after the other).
        instance: randomBytes(8).toString('hex'),
      };
      const lock = new DataDirLock(db, join(dataDir, LOCK_FILE), record);
      lock.#write();
      return lock;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Records the address the gateway answers on, for a second start to name and CLI commands to use. */
  publish(url: string): void {
    if (this.#released) return;
    this.#record.url = url;
    this.#write();
  }

  /** Lets go of the folder: the `lock` file goes, then the OS lock. Safe to call twice. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      if (parseHolderFile(this.#file)?.instance === this.#record.instance) rmSync(this.#file, { force: true });
    } finally {
      this.#db.close();
    }
  }

  #write(): void {
    // Write, then rename: a reader sees the previous record or this one, never half of one.
    const temporary = `${this.#file}.${process.pid}.${this.#record.instance}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(this.#record)}\n`, { mode: 0o600 });
    renameSync(temporary, this.#file);
  }
}

/**
 * The gateway holding `dataDir` right now: `undefined` when none does; `{ holder: undefined }` when one does but its
 * `lock` file does not say who (it is starting). The OS lock decides; the file only names the holder.
 */
export function lockHolder(dataDir: string, options: LockOptions = {}): { holder: LockHolder | undefined } | undefined {
  const db = openLockDb(dataDir, options, false);
  if (!db) return undefined;
  try {
    if (tryLock(db)) {
      db.exec('ROLLBACK');
      return undefined;
    }
  } finally {
    db.close();
  }
  return { holder: readHolder(dataDir) };
}

function openLockDb(dataDir: string, options: LockOptions, create: boolean): Database.Database | undefined {
  const file = join(dataDir, LOCK_DB);
  // No lock file (or no data folder yet, which better-sqlite3 refuses before SQLite sees it): nobody holds it.
  if (!create && !existsSync(file)) return undefined;
  let db: Database.Database;
  try {
    // timeout 0: a held lock answers SQLITE_BUSY at once instead of after the default five seconds.
    db = new Database(file, { timeout: 0, fileMustExist: !create, ...(options.nativeBinding && { nativeBinding: options.nativeBinding }) });
  } catch (error) {
    if (!create && (error as { code?: string }).code === 'SQLITE_CANTOPEN') return undefined;
    throw error;
  }
  if (create) chmodSync(file, 0o600);
  return db;
}

/** Takes the OS lock if it is free. Nobody writes to the file, so SQLITE_BUSY means someone holds it. */
function tryLock(db: Database.Database): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw error;
  }
}

/** What the `lock` file says, when it names a process that is still the one that wrote it. */
function readHolder(dataDir: string): LockHolder | undefined {
  const record = parseHolderFile(join(dataDir, LOCK_FILE));
  if (!record) return undefined;
  const { instance: _instance, ...holder } = record;
  return processAlive(holder.pid, holder.start) ? holder : undefined;
}

function parseHolderFile(file: string): (LockHolder & { instance?: string }) | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined; // none, or not ours
  }
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length < 200 ? v : undefined);
  const pid = value.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const url = text(value.url);
  return {
    pid,
    ...(text(value.start) && { start: text(value.start)! }),
    // Only an address on this machine's own HTTP is taken from the file: CLI commands send the token there.
    ...(url && /^http:\/\/[^/?#@\s]+$/.test(url) && { url }),
    ...(text(value.version) && { version: text(value.version)! }),
    since: text(value.since) ?? '',
    ...(text(value.instance) && { instance: text(value.instance)! }),
  };
}

/** Where start times cannot be read (Windows), a live pid counts: this only picks whom a message names (the OS lock decides who holds the folder). */
function processAlive(pid: number, start: string | undefined): boolean {
  if (start !== undefined) return isSameProcess(pid, start);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openDatabase, type Db } from '../../../server/store/db.js';
import { openStore, type CallRecord, type Store } from '../../../server/store/index.js';
import { MIGRATIONS } from '../../../server/store/migrations/index.js';
import { finishedCall } from '../../helpers/calls.js';

// The store's tests share one fixture: a fresh database file per test, every handle closed after it.
// `file` is a live binding: a test file reads the current test's values through its import.

export const NEWEST = MIGRATIONS.at(-1)!.version;
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0); // a whole minute, so minute buckets start exactly here

let dir: string;
export let file: string;
const open: { close(): void }[] = [];

/** Registers the per-test database file and its clean-up; call once at the top of a test file. */
export function useTempStore(): void {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pincer-store-'));
    file = join(dir, 'pincer.db');
  });

  afterEach(() => {
    for (const handle of open.splice(0)) {
      try {
        handle.close();
      } catch {
        // already closed by the test
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
}

export function track<T extends { close(): void }>(handle: T): T {
  open.push(handle);
  return handle;
}

export function newStore(): Store {
  return track(openStore(file));
}

export function newDb(): Db {
  return track(openDatabase(file));
}

export function userVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function tableNames(db: Db): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
    .all()
    .map((r) => r.name);
}

let seq = 0;
/** A finished call; override what a test is about. */
export function call(overrides: Partial<CallRecord> = {}): CallRecord {
  seq += 1;
  return finishedCall(`c_${String(seq).padStart(6, '0')}`, overrides.started_at ?? new Date(T0 + seq * 1000).toISOString(), overrides);
}

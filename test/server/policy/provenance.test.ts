import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyDecision, Subject } from '../../../server/decision.js';
import { FileProvenance, type RanCall } from '../../../server/policy/provenance.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { tempDir } from '../../helpers/gateway.js';
import { rmSync } from 'node:fs';

/**
 * The record of which client wrote which file, on a real SQLite database, with the clock in the test's hands: what
 * is noted for which call, what a command's run files match, what the window keeps, and what the policy makes of it.
 */

const HOUR = 60 * 60 * 1000;
let dir: string;
let store: Store;
let now: number;
let provenance: FileProvenance;

beforeEach(() => {
  dir = tempDir('pincer-provenance-');
  store = openStore(join(dir, 'pincer.db'));
  now = Date.parse('2026-12-01T12:00:00Z');
  provenance = new FileProvenance(store, { now: () => now, maxRows: 50 });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function ran(over: Partial<RanCall> = {}): RanCall {
  return {
    id: 'c_1',
    tool: 'file_write',
    client: 'cursor',
    arguments: { path: 'Makefile' },
    status: 'succeeded',
    result: { root: '/p', path: 'Makefile' },
    error: null,
    ...over,
  };
}

/** A call that ran, told to the record as the executor tells it: from a built-in tool, a client's, unless said. */
function note(over: Partial<RanCall> & { source?: string; owner?: boolean }, subject: Subject | undefined): void {
  const { source = 'builtin', owner = false, ...call } = over;
  provenance.noteRan(ran(call), source, owner, subject);
}

const make: Subject = { runs: [{ path: '/p/Makefile', by: 'make' }] };

describe('what a call that ran wrote', () => {
  it("a file_write that succeeded is noted at its root and relative path, under its client", () => {
    note({}, undefined);
    expect(provenance.of(make)).toEqual([
      { path: '/p/Makefile', by: 'make', client: 'cursor', tool: 'file_write', call_id: 'c_1', at: new Date(now).toISOString() },
    ]);
  });

  it('a file_write that failed wrote nothing; one that timed out may have', () => {
    note({ status: 'failed', result: null, error: { name: 'FILE_EXISTS' } }, { path: '/p/Makefile' });
    expect(provenance.of(make)).toEqual([]);
    note({ id: 'c_2', status: 'failed', result: null, error: { name: 'TOOL_TIMEOUT' } }, { path: '/p/Makefile' });
    expect(provenance.of(make).map((p) => p.call_id)).toEqual(['c_2']);
  });

  it("run_shell's writes are the paths its analysis found; one that never started wrote nothing", () => {
    note({ tool: 'run_shell', result: { exit_code: 1 }, status: 'succeeded' }, { writes: ['/p/Makefile'] });
    expect(provenance.of(make).map((p) => p.tool)).toEqual(['run_shell']);
    const other: Subject = { runs: [{ path: '/q/Makefile', by: 'make' }] };
    note({ id: 'c_9', tool: 'run_shell', status: 'failed', error: { name: 'CWD_NOT_ALLOWED' } }, { writes: ['/q/Makefile'] });
    expect(provenance.of(other)).toEqual([]);
  });

  it("a plugin's or imported tool's call says nothing about what it wrote", () => {
    note({ source: 'plugin:evil', tool: 'file_write' }, undefined);
    expect(provenance.of(make)).toEqual([]);
  });

  it("the owner's write is not a client's; their overwrite clears the client's, an append does not", () => {
    note({ owner: true, client: 'owner' }, undefined);
    expect(provenance.of(make)).toEqual([]);
    note({}, undefined);
    note({ owner: true, client: 'owner', arguments: { path: 'Makefile', mode: 'append' } }, undefined);
    expect(provenance.of(make)).toHaveLength(1);
    note({ owner: true, client: 'owner' }, undefined);
    expect(provenance.of(make)).toEqual([]);
  });

  it('each client is named with its latest write, newest first', () => {
    note({ id: 'c_a', client: 'cursor' }, undefined);
    now += 1000;
    note({ id: 'c_b', client: 'claude' }, undefined);
    now += 1000;
    note({ id: 'c_c', client: 'cursor' }, undefined);
    expect(provenance.of(make).map((p) => [p.client, p.call_id])).toEqual([
      ['cursor', 'c_c'],
      ['claude', 'c_b'],
    ]);
  });
});

describe('which writes a command runs', () => {
  it('a write older than the window is not named, and is dropped as new ones come', () => {
    note({ id: 'c_old' }, undefined);
    now += 25 * HOUR;
    expect(provenance.of(make)).toEqual([]);
    note({ id: 'c_new', result: { root: '/p', path: 'other' } }, undefined);
    expect(store.fileWrites.at(['/p/Makefile'], 0)).toEqual([]);
  });

  it('a file under a tree counts only when its name matches', () => {
    const act: Subject = { runs: [{ path: '/p/.github/workflows', by: 'act', tree: true }] };
    const pytest: Subject = { runs: [{ path: '/p/tests', by: 'pytest', tree: true, names: ['conftest.py'] }] };
    note({ result: { root: '/p', path: '.github/workflows/ci.yml' } }, undefined);
    note({ id: 'c_2', result: { root: '/p', path: 'tests/unit/conftest.py' } }, undefined);
    note({ id: 'c_3', result: { root: '/p', path: 'tests/unit/test_x.py' } }, undefined);
    note({ id: 'c_4', result: { root: '/p', path: '.github/workflows-old/ci.yml' } }, undefined);
    expect(provenance.of(act).map((p) => p.path)).toEqual(['/p/.github/workflows/ci.yml']);
    expect(provenance.of(pytest).map((p) => p.path)).toEqual(['/p/tests/unit/conftest.py']);
  });

  it('a copy into a folder (its names unknown) is named with the folder it went into', () => {
    note({ tool: 'run_shell' }, { writes: ['/p'] });
    expect(provenance.of(make)).toMatchObject([{ path: '/p/Makefile', folder: '/p', tool: 'run_shell' }]);
  });

  it('a sibling folder whose name starts the same is not inside', () => {
    note({ result: { root: '/p2', path: 'Makefile' } }, undefined);
    expect(provenance.of({ runs: [{ path: '/p', by: 'act', tree: true }] })).toEqual([]);
    expect(provenance.of(make)).toEqual([]);
  });

  it('the table keeps at most its row cap, dropping the oldest', () => {
    for (let i = 0; i < 60; i++) {
      now += 1;
      note({ id: `c_${i}`, result: { root: '/p', path: `f${i}` } }, undefined);
    }
    expect(store.fileWrites.at(['/p/f0'], 0)).toEqual([]);
    expect(store.fileWrites.at(['/p/f59'], 0)).toHaveLength(1);
    expect(store.fileWrites.under('/p', 0, 1000)).toHaveLength(50);
  });
});

describe('what the policy makes of it', () => {
  const allowed: PolicyDecision = { decision: 'allow', rule: 'shell:read-only', reason: 'Read-only.', subject: make };
  const asked: PolicyDecision = { decision: 'ask', rule: 'shell:interpreter', reason: 'make runs code.', subject: make };

  it('a command that runs nothing a client wrote is left as it was', () => {
    expect(provenance.judge(allowed)).toBe(allowed);
  });

  it('an allow of a command that runs a client-written file asks, naming the file and the client', () => {
    note({}, undefined);
    const judged = provenance.judge(allowed);
    expect(judged).toMatchObject({ decision: 'ask', rule: 'provenance:client-written' });
    expect(judged.reason).toContain('/p/Makefile');
    expect(judged.reason).toContain('"cursor"');
    expect(judged.subject?.provenance).toHaveLength(1);
  });

  it('an ask keeps its reason and carries the provenance', () => {
    note({}, undefined);
    expect(provenance.judge(asked)).toMatchObject({ decision: 'ask', rule: 'shell:interpreter', subject: { provenance: [{ client: 'cursor' }] } });
  });

  it('files left off a long card are not taken for changes; a new write still is', () => {
    const many: Subject = { runs: Array.from({ length: 30 }, (_, i) => ({ path: `/p/f${i}`, by: 'make' })) };
    for (let i = 0; i < 30; i++) {
      now += 1000;
      note({ id: `c_${i}`, result: { root: '/p', path: `f${i}` } }, undefined);
    }
    const seen = provenance.judge({ ...asked, subject: many }).subject;
    expect(seen?.provenance).toHaveLength(20);
    expect(provenance.changedSince(seen)).toBeUndefined();
    now += 1000;
    note({ id: 'c_late', result: { root: '/p', path: 'f3' } }, undefined);
    expect(provenance.changedSince(seen)?.details.provenance).toMatchObject([{ call_id: 'c_late', path: '/p/f3' }]);
  });

  it('a write after the judgement is a change; one the judgement saw is not', () => {
    expect(provenance.changedSince(make)).toBeUndefined();
    note({}, undefined);
    const seen = provenance.judge(asked).subject;
    expect(provenance.changedSince(seen)).toBeUndefined();
    now += 1000;
    note({ id: 'c_again' }, undefined);
    const changed = provenance.changedSince(seen);
    expect(changed?.errorName).toBe('FILES_CHANGED');
    expect(changed?.status).toBe(409);
    expect(changed?.details.provenance).toMatchObject([{ call_id: 'c_again' }]);
  });
});

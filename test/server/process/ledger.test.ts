import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeLeftover, ProcessLedger, type LedgerRecord } from '../../../server/process/index.js';
import { processStartTime } from '../../../server/process/proc.js';
import { tempDir } from '../../helpers/gateway.js';
import { eventually, processesMatching } from '../../helpers/processes.js';

/*
 * Start-up recovery, with real processes standing in for what a gateway killed with kill -9 left running: each is
 * started detached (its own session and group, like the runner's) and written into the ledger of a dead owner.
 */

const folders: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(prefix = 'pincer-ledger-test-'): string {
  const dir = tempDir(prefix);
  folders.push(dir);
  return dir;
}

/** A detached `sh -c script`, as the runner starts one: leader of its own session and process group. */
function leftover(script: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore', cwd: options.cwd, env: options.env ?? { PATH: process.env.PATH } });
  child.unref();
  children.push(child);
  return child;
}

/** Writes what a dead gateway would have left: an owner folder whose pid or start time no longer matches. */
function deadOwnerLedger(records: Array<Partial<LedgerRecord>>): string {
  const dir = join(folder(), 'run');
  // This very pid with a start time that is not ours: a gateway that died and whose pid was reused.
  const owner = join(dir, `${process.pid}-t1b0`);
  mkdirSync(owner, { recursive: true });
  records.forEach((record, i) => writeFileSync(join(owner, `${i + 1}.json`), JSON.stringify({ kind: 'run_shell', startedAt: '2026-01-01T00:00:00.000Z', ...record })));
  return dir;
}


const running = (needle: string) => processesMatching(needle).length > 0;

/** Creates a folder named like a scratch folder (`pincer-<name>-XXXXXX`). */
function scratchFolder(): string {
  const dir = mkdtempSync(join(folder(), 'pincer-test-'));
  writeFileSync(join(dir, 'left.txt'), 'x');
  return dir;
}

describe('ledger: start-up recovery', () => {
  it('kills the group a dead gateway left running, background jobs included, and removes its scratch folder', async () => {
    const scratch = scratchFolder();
    const child = leftover('sleep 31.0201 & sleep 31.0202', { cwd: scratch });
    expect(await eventually(() => running('sleep 31.0201') && running('sleep 31.0202'))).toBe(true);
    const dir = deadOwnerLedger([{ pid: child.pid!, start: processStartTime(child.pid!)!, scratch }]);

    const found = new ProcessLedger(dir).recover();
    expect(found).toEqual([expect.objectContaining({ killed: 3, removed: scratch })]);
    expect(await eventually(() => !running('sleep 31.0201') && !running('sleep 31.0202'))).toBe(true);
    expect(existsSync(scratch)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never kills a process whose pid was given to someone else (the start time differs)', async () => {
    const child = leftover('sleep 31.0203');
    expect(await eventually(() => running('sleep 31.0203'))).toBe(true);
    const dir = deadOwnerLedger([{ pid: child.pid!, start: 't1b0' }]);

    expect(new ProcessLedger(dir).recover()).toEqual([expect.objectContaining({ killed: 0 })]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running('sleep 31.0203')).toBe(true);
  });

  it('leaves alone the runs of a gateway that is still running', async () => {
    const child = leftover('sleep 31.0204');
    expect(await eventually(() => running('sleep 31.0204'))).toBe(true);
    const dir = join(folder(), 'run');
    // The parent of this test process is alive, with this start time: its runs are its own business.
    const owner = join(dir, `${process.ppid}-${processStartTime(process.ppid)}`);
    mkdirSync(owner, { recursive: true });
    writeFileSync(join(owner, '1.json'), JSON.stringify({ kind: 'run_shell', pid: child.pid, start: processStartTime(child.pid!), startedAt: '' }));

    expect(new ProcessLedger(dir).recover()).toEqual([]);
    expect(running('sleep 31.0204')).toBe(true);
    expect(existsSync(join(owner, '1.json'))).toBe(true);
  });

  it('finds a process by the tag in its environment when its pid was never recorded', async () => {
    leftover('sleep 31.0205', { env: { PATH: process.env.PATH, TOOL_RUN_TAG: 'ledger-test-tag-0205' } });
    expect(await eventually(() => running('sleep 31.0205'))).toBe(true);
    const dir = deadOwnerLedger([{ tag: 'TOOL_RUN_TAG=ledger-test-tag-0205' }]);

    const [found] = new ProcessLedger(dir).recover();
    expect(found!.killed).toBeGreaterThanOrEqual(1);
    expect(await eventually(() => !running('sleep 31.0205'))).toBe(true);
  });

  it('finds a process that works in the recorded scratch folder', async () => {
    const scratch = scratchFolder();
    leftover('sleep 31.0206', { cwd: scratch });
    expect(await eventually(() => running('sleep 31.0206'))).toBe(true);
    const dir = deadOwnerLedger([{ kind: 'run_python', scratch }]);

    const [found] = new ProcessLedger(dir).recover();
    expect(found).toMatchObject({ removed: scratch });
    expect(found!.killed).toBeGreaterThanOrEqual(1);
    expect(await eventually(() => !running('sleep 31.0206'))).toBe(true);
    expect(existsSync(scratch)).toBe(false);
  });

  it('removes only real folders named like its scratch folders', () => {
    const ordinary = folder('keep-me-');
    const target = folder('keep-target-');
    const link = join(folder(), 'pincer-test-AbCdEf');
    symlinkSync(target, link);
    const dir = deadOwnerLedger([{ scratch: ordinary }, { scratch: link }, { scratch: '/' }]);

    const found = new ProcessLedger(dir).recover();
    expect(found.map((f) => f.removed)).toEqual([undefined, undefined, undefined]);
    expect(existsSync(ordinary)).toBe(true);
    expect(existsSync(target)).toBe(true);
  });

  it('skips half-written and foreign files, and still clears the dead owner', () => {
    const dir = deadOwnerLedger([]);
    const owner = join(dir, readdirSync(dir)[0]!);
    writeFileSync(join(owner, '1.json'), '{"kind": "run_sh');
    writeFileSync(join(owner, '2.json.tmp'), '{}');
    writeFileSync(join(owner, '3.json'), '[1, 2]');
    mkdirSync(join(dir, 'not-an-owner'));

    expect(new ProcessLedger(dir).recover()).toEqual([expect.objectContaining({ killed: 0 })]);
    expect(readdirSync(dir)).toEqual(['not-an-owner']);
  });

  it('answers nothing when there is no ledger yet', () => {
    expect(new ProcessLedger(join(folder(), 'run')).recover()).toEqual([]);
  });

  it('describes what it did in one line, and stays quiet about runs that left nothing', () => {
    const record = { kind: 'run_shell', pid: 42, startedAt: '2026-01-01T00:00:00.000Z' };
    expect(describeLeftover({ record, killed: 2, removed: '/tmp/pincer-shell-tmp-AbCdEf' })).toBe(
      'an earlier run of the gateway left run_shell (pid 42) started 2026-01-01T00:00:00.000Z running: 2 processes killed, scratch folder /tmp/pincer-shell-tmp-AbCdEf removed',
    );
    expect(describeLeftover({ record, killed: 0, removed: '/tmp/pincer-python-AbCdEf' })).toMatch(/left run_shell .* behind: scratch folder \/tmp\/pincer-python-AbCdEf removed$/);
    expect(describeLeftover({ record, killed: 0 })).toBeUndefined();
  });
});

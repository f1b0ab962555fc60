import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, DataDirLock, lockHolder, LOCK_DB, LOCK_FILE } from '../../../server/store/index.js';
import { processStartTime } from '../../../server/process/proc.js';
import { tempDir } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/** The lock module as compiled (children run it under plain Node). */
const LOCK_MODULE = pathToFileURL(resolve(import.meta.dirname, '../../../dist/server/store/data-dir-lock.js')).href;

const dirs: string[] = [];
const children: ChildProcess[] = [];
const dir = () => {
  const made = tempDir('pincer-lock-');
  dirs.push(made);
  return made;
};

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  }
  for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
});

/** Runs `script` (an ES module body with `lock` = the compiled lock module) in a child; resolves on its first line. */
async function child(script: string, args: string[] = []): Promise<{ proc: ChildProcess; first: string; output: () => string }> {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', `const lock = await import(${JSON.stringify(LOCK_MODULE)});\n${script}`, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let output = '';
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const first = await new Promise<string>((resolveLine, reject) => {
    proc.stdout!.on('data', () => {
      const newline = output.indexOf('\n');
      if (newline >= 0) resolveLine(output.slice(0, newline));
    });
    proc.once('exit', (code) => reject(new Error(`child exited ${code}: ${output}`)));
  });
  return { proc, first, output: () => output };
}

// globalThis keeps the lock reachable: a collected connection is closed, and its lock with it.
const HOLD = `globalThis.held = lock.DataDirLock.acquire(process.argv[1]); held.publish('http://127.0.0.1:4321'); console.log('held'); setInterval(() => {}, 1000);`;

function inUse(action: () => unknown): DataDirInUseError {
  try {
    action();
  } catch (error) {
    if (error instanceof DataDirInUseError) return error;
    throw error;
  }
  throw new Error('expected DataDirInUseError');
}

describe('the data folder lock', () => {
  it('a second holder in the same process is refused, naming this process and its address', () => {
    const folder = dir();
    const first = DataDirLock.acquire(folder);
    try {
      first.publish('http://127.0.0.1:7801');
      const error = inUse(() => DataDirLock.acquire(folder));
      expect(error.holder).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:7801' });
      expect(error.message).toBe(`the data folder ${folder} is in use by the gateway pid ${process.pid} on http://127.0.0.1:7801`);
    } finally {
      first.release();
    }
  });

  it('a holder in another process is refused; its kill -9 leaves a stale lock file that the next start takes over at once', async () => {
    const folder = dir();
    const holder = await child(HOLD, [folder]);
    expect(holder.first).toBe('held');
    const error = inUse(() => DataDirLock.acquire(folder));
    expect(error.holder).toMatchObject({ pid: holder.proc.pid, url: 'http://127.0.0.1:4321', start: processStartTime(holder.proc.pid!) });
    expect(lockHolder(folder)).toEqual({ holder: error.holder });

    holder.proc.kill('SIGKILL');
    await new Promise((r) => holder.proc.once('exit', r));
    // The file still names the dead process: only the OS lock went with it.
    expect(JSON.parse(readFileSync(join(folder, LOCK_FILE), 'utf8')).pid).toBe(holder.proc.pid);
    expect(lockHolder(folder)).toBeUndefined();
    const next = DataDirLock.acquire(folder);
    try {
      expect(JSON.parse(readFileSync(join(folder, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, start: processStartTime(process.pid) });
    } finally {
      next.release();
    }
  });

  it('a lock file naming a live process that holds nothing (a reused pid) does not block a start', () => {
    const folder = dir();
    // Our parent is alive but holds no lock here: what a pid reused by an unrelated process looks like.
    writeFileSync(join(folder, LOCK_FILE), JSON.stringify({ pid: process.ppid, start: processStartTime(process.ppid), url: 'http://127.0.0.1:1', since: '' }));
    expect(lockHolder(folder)).toBeUndefined();
    const lock = DataDirLock.acquire(folder);
    lock.release();
  });

  it('a lock file that is not ours (garbage, a bad pid, a foreign URL) names nobody', async () => {
    const folder = dir();
    const holder = await child(`globalThis.held = lock.DataDirLock.acquire(process.argv[1]); console.log('held'); setInterval(() => {}, 1000);`, [folder]);
    expect(holder.first).toBe('held');
    for (const content of ['not json', JSON.stringify({ pid: -4 }), JSON.stringify({ pid: 'x' })]) {
      writeFileSync(join(folder, LOCK_FILE), content);
      // Still refused: the OS lock decides, the file only names the holder.
      expect(inUse(() => DataDirLock.acquire(folder)).holder).toBeUndefined();
      expect(lockHolder(folder)).toEqual({ holder: undefined });
    }
    // An address that is not plain loopback-style HTTP is never handed to a command that would send it the token.
    writeFileSync(join(folder, LOCK_FILE), JSON.stringify({ pid: holder.proc.pid, start: processStartTime(holder.proc.pid!), url: 'http://evil@127.0.0.1:1/x', since: '' }));
    expect(lockHolder(folder)?.holder?.url).toBeUndefined();
  });

  it('release removes the lock file and frees the folder at once, and is safe to call twice', () => {
    const folder = dir();
    const lock = DataDirLock.acquire(folder);
    expect(existsSync(join(folder, LOCK_FILE))).toBe(true);
    lock.release();
    lock.release();
    expect(existsSync(join(folder, LOCK_FILE))).toBe(false);
    expect(lockHolder(folder)).toBeUndefined();
    DataDirLock.acquire(folder).release();
    // The OS lock's file stays, empty: nothing is ever written to it.
    expect(readFileSync(join(folder, LOCK_DB)).length).toBe(0);
  });

  it('asking who holds a folder creates nothing there', () => {
    const folder = dir();
    expect(lockHolder(folder)).toBeUndefined();
    expect(existsSync(join(folder, LOCK_DB))).toBe(false);
    expect(existsSync(join(folder, LOCK_FILE))).toBe(false);
  });

  it('a holder that is only passing (a command checking the lock) is waited for, not taken for a gateway', async () => {
    const folder = dir();
    DataDirLock.acquire(folder).release();
    // Holds the OS lock for a moment without a lock file, as lockHolder() does while it looks.
    const passing = await child(
      `const { default: Database } = await import('better-sqlite3'); const db = new Database(process.argv[1] + '/${LOCK_DB}', { timeout: 0 });
       db.exec('BEGIN IMMEDIATE'); console.log('holding'); setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, 100); setTimeout(() => {}, 5000);`,
      [folder],
    );
    expect(passing.first).toBe('holding');
    const lock = DataDirLock.acquire(folder);
    lock.release();
  });

  it('of gateways starting at the same instant exactly one takes the folder; the others are told who has it', async () => {
    const folder = dir();
    const at = Date.now() + 1500;
    const racers = await Promise.all(
      Array.from({ length: 6 }, () =>
        child(
          `while (Date.now() < ${at}) {}
           try { globalThis.held = lock.DataDirLock.acquire(process.argv[1]); held.publish('http://127.0.0.1:' + process.pid); console.log('won'); }
           catch (error) { console.log(error instanceof lock.DataDirInUseError ? 'refused ' + (error.holder?.pid ?? 'unknown') : 'error ' + error.message); }
           setTimeout(() => {}, 20000);`,
          [folder],
        ),
      ),
    );
    const firsts = racers.map((r) => r.first);
    expect(firsts.filter((line) => line === 'won')).toHaveLength(1);
    const winner = racers.find((r) => r.first === 'won')!.proc.pid;
    for (const line of firsts.filter((l) => l !== 'won')) expect(line).toMatch(/^refused (\d+|unknown)$/);
    await until(() => lockHolder(folder)?.holder?.pid === winner, 'the winner to be named');
    expect(lockHolder(folder)?.holder?.url).toBe(`http://127.0.0.1:${winner}`);
  });
});

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One process as /proc/<pid>/stat describes it. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Clock ticks since boot when it started: with the pid, it names one process even after the pid is reused. */
  start: string;
}

/** A live process (zombies count as gone: only an exit status is left of them), or undefined. Linux only. */
export function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses: read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** Every live process, or undefined where there is no /proc (macOS, Windows). */
export function listProcs(): ProcInfo[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const out: ProcInfo[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const proc = readProc(Number(name));
    if (proc) out.push(proc);
  }
  return out;
}

const HAS_PROC = process.platform === 'linux';
let bootId: string | undefined;

/** This boot, so a start time read before a reboot never matches a process of the next one. */
function currentBoot(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(/[^0-9a-f]/g, '').slice(0, 12);
    } catch {
      bootId = '';
    }
  }
  return bootId;
}

/**
 * When `pid` started, as a token that tells it apart from a later process given the same pid: `/proc` start ticks
 * on Linux, `ps -o lstart=` (one-second resolution) elsewhere; undefined when the process is gone or its start
 * cannot be read (Windows), in which case nothing may be killed on the strength of the pid alone.
 */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (HAS_PROC) {
    const proc = readProc(pid);
    return proc ? linuxStart(proc) : undefined;
  }
  if (process.platform === 'win32') return undefined;
  try {
    const started = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const ms = Date.parse(started);
    return Number.isFinite(ms) ? `s${Math.round(ms / 1000)}` : undefined;
  } catch {
    return undefined; // ps exits 1 when the pid is gone
  }
}

/** The start-time token of a process read from /proc (Linux). */
export function linuxStart(proc: ProcInfo): string {
  return `t${proc.start}b${currentBoot()}`;
}

/** Whether `pid` is still the very process that had start time `start`. */
export function isSameProcess(pid: number, start: string | undefined): boolean {
  return start !== undefined && processStartTime(pid) === start;
}

/** Whether the environment of `pid` holds `NAME=value` exactly (false for another user's process, or off Linux). */
export function hasEnvironmentEntry(pid: number, entry: string): boolean {
  try {
    return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${entry}\0`);
  } catch {
    return false;
  }
}

/** The working folder of `pid`, or undefined when it cannot be read. */
export function workingFolder(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** Sends a signal; quiet when the target is already gone (ESRCH) or was never ours (EPERM). */
export function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // nothing to do
  }
}

import { sep } from 'node:path';
import { hasEnvironmentEntry, isSameProcess, linuxStart, listProcs, sendSignal, workingFolder, type ProcInfo } from './proc.js';

/** What names the processes of one run, so they can be found again to be stopped. */
export interface TreeIdentity {
  /** The process the runner started: leader of its own session and process group (pid = pgid = sid). */
  leader: number;
  /** The leader's start time (processStartTime); without it a leftover group is never signalled. */
  leaderStart?: string | undefined;
  /** `NAME=value` in the environment of everything the run starts: finds a process that left the tree. */
  tag?: string | undefined;
  /** The run's scratch folder: a process working inside it belongs to the run. */
  scratch?: string | undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pause = new Int32Array(new SharedArrayBuffer(4));
/** Blocks for `ms`: only for the last moments of a process that is exiting now and has no event loop left to wait on. */
const sleepSync = (ms: number) => void Atomics.wait(pause, 0, 0, ms);

/**
 * Everything one run started, so a timeout, an abort or a stop can end all of it. The runner makes the leader a
 * session and group leader; background jobs stay in its group and session, and a job that calls setsid/setpgid
 * stays its descendant until its parent dies. While the run is watched the tree is re-read, so such a job is still
 * known (by pid and start time) after it has been orphaned; a job that double-forked out of the session
 * (`setsid -f`) is still found by the run's tag in its environment or by working in the run's scratch folder.
 *
 * `live` trees belong to a run this process is supervising. A tree rebuilt from the ledger after a crash is not
 * live: its group and session are only signalled while the leader is provably the same process (same start time),
 * so a pid the system has since given to an unrelated program is never killed.
 */
export class ProcessTree {
  readonly #known = new Map<number, string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly identity: TreeIdentity,
    readonly live = true,
  ) {}

  /** Re-reads the tree every `intervalMs` until stopWatching (Linux; elsewhere only the group can be reached). */
  watch(intervalMs: number): void {
    this.#timer ??= setInterval(() => this.#scan(false), intervalMs);
    this.#timer.unref();
  }

  stopWatching(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Whether the group and session of the leader are still the run's own. */
  #ownsGroup(procs: readonly ProcInfo[] | undefined): boolean {
    if (this.live) return true;
    const { leader, leaderStart } = this.identity;
    if (leaderStart === undefined) return false;
    if (!procs) return isSameProcess(leader, leaderStart);
    const proc = procs.find((p) => p.pid === leader);
    return proc !== undefined && linuxStart(proc) === leaderStart;
  }

  /** The run's processes: its session, group, descendants, anything seen in them before; never this process. */
  #scan(thorough: boolean): { members: ProcInfo[] | undefined; ownsGroup: boolean } {
    const procs = listProcs();
    const ownsGroup = this.#ownsGroup(procs);
    if (!procs) return { members: undefined, ownsGroup };
    const { leader, tag, scratch } = this.identity;
    const members = new Map<number, ProcInfo>();
    for (const p of procs) {
      if (
        (ownsGroup && leader > 1 && (p.pid === leader || p.sid === leader || p.pgid === leader)) ||
        this.#known.get(p.pid) === p.start ||
        (thorough && this.#escaped(p.pid, tag, scratch))
      ) {
        members.set(p.pid, p);
      }
    }
    // Descendants that moved to a session or group of their own.
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of procs) {
        if (!members.has(p.pid) && members.has(p.ppid)) {
          members.set(p.pid, p);
          grew = true;
        }
      }
    }
    members.delete(process.pid);
    for (const p of members.values()) this.#known.set(p.pid, p.start);
    return { members: [...members.values()], ownsGroup };
  }

  #escaped(pid: number, tag: string | undefined, scratch: string | undefined): boolean {
    if (pid === process.pid) return false;
    if (tag && hasEnvironmentEntry(pid, tag)) return true;
    if (!scratch) return false;
    const cwd = workingFolder(pid);
    return cwd !== undefined && (cwd === scratch || cwd.startsWith(scratch + sep));
  }

  /** Sends `signal` to the group and to every member found. Returns how many members were found alive. */
  #signalAll(signal: NodeJS.Signals): number {
    const { members, ownsGroup } = this.#scan(true);
    if (ownsGroup && this.identity.leader > 1) sendSignal(-this.identity.leader, signal);
    if (!members) return 0;
    for (const p of members) sendSignal(p.pid, signal);
    return members.length;
  }

  /**
   * Stops everything: SIGTERM, then SIGKILL for whatever is still there after `graceMs` (at once when it is 0).
   * Resolves once nothing of the tree is left (or, without /proc, once the group has been sent SIGKILL).
   */
  async terminate(graceMs: number): Promise<void> {
    if (graceMs > 0 && this.#signalAll('SIGTERM') > 0) {
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline) {
        await sleep(25);
        const left = this.#scan(false).members;
        if (!left || left.length === 0) break;
      }
    }
    for (let round = 0; round < 5; round++) {
      if (this.#signalAll('SIGKILL') === 0) break;
      await sleep(20);
    }
  }

  /**
   * SIGKILL to everything, synchronously: for a process that is about to exit (a second Ctrl-C) and cannot wait
   * for timers. Returns how many processes were found.
   */
  killNow(): number {
    let found = 0;
    for (let round = 0; round < 5; round++) {
      const alive = this.#signalAll('SIGKILL');
      if (round === 0) found = alive;
      if (alive === 0) break;
      sleepSync(10);
    }
    return found;
  }
}

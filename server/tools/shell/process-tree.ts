import { readdirSync, readFileSync } from 'node:fs';

/** One process as /proc/<pid>/stat describes it; `start` (clock ticks since boot) tells a reused pid apart. */
interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  start: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses: read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie is already dead (only its exit status is left for the parent): nothing to kill or wait for.
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

function listProcs(): Proc[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined; // not Linux: only the process group can be reached
  }
  const out: Proc[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const proc = readProc(Number(name));
    if (proc) out.push(proc);
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone (ESRCH) or never ours (EPERM): nothing to do.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Everything a command started, so a timeout can stop all of it. node-pty makes the shell a session and group
 * leader; background jobs stay in its group and session, and a job that calls setsid/setpgid stays its
 * descendant until its parent dies. The tree is watched while the command runs so that such a job is still known
 * (by pid and start time) after it has been orphaned.
 */
export class ProcessTree {
  readonly #known = new Map<number, string>();
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param marker `NAME=value` present in the environment of everything the command starts: a process that
   *   double-forked out of the session (`setsid -f`) is still found by it when the tree is stopped.
   */
  constructor(
    readonly leader: number,
    readonly marker?: string,
  ) {}

  /** Re-reads the tree every `intervalMs` while the command runs. */
  watch(intervalMs: number): void {
    this.#timer = setInterval(() => this.#scan(), intervalMs);
    this.#timer.unref();
  }

  stopWatching(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The leader's session, group and descendants, plus anything seen in them before; never this process. */
  #scan(byMarker = false): Proc[] | undefined {
    const procs = listProcs();
    if (!procs) return undefined;
    const members = new Map<number, Proc>();
    for (const p of procs) {
      if (
        p.pid === this.leader ||
        p.sid === this.leader ||
        p.pgid === this.leader ||
        this.#known.get(p.pid) === p.start ||
        (byMarker && this.#marked(p.pid))
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
    return [...members.values()];
  }

  #marked(pid: number): boolean {
    if (!this.marker || pid === process.pid) return false;
    try {
      return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${this.marker}\0`);
    } catch {
      return false; // another user's process, or gone
    }
  }

  /** Sends `sig` to the group and to every member found. Returns how many members are still alive. */
  #signalAll(sig: NodeJS.Signals): number {
    signal(-this.leader, sig);
    const members = this.#scan(true);
    if (!members) return 0;
    for (const p of members) signal(p.pid, sig);
    return members.length;
  }

  /**
   * Stops everything: SIGTERM, then SIGKILL for whatever is still there after `graceMs`. Resolves once nothing of
   * the tree is left (or, on systems without /proc, once the group has been killed).
   */
  async terminate(graceMs: number): Promise<void> {
    if (this.#signalAll('SIGTERM') > 0 && graceMs > 0) {
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline) {
        await sleep(25);
        const left = this.#scan();
        if (!left || left.length === 0) break;
      }
    }
    for (let round = 0; round < 5; round++) {
      if (this.#signalAll('SIGKILL') === 0) break;
      await sleep(20);
    }
  }
}

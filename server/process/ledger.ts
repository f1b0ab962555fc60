import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStartTime } from './proc.js';
import { ProcessTree } from './process-tree.js';
import { looksLikeScratchFolder, removeScratchFolderSync } from './scratch.js';

/** What the ledger knows of one run: enough to find its processes and its folder again after a crash. */
export interface LedgerRecord {
  /** What it was: `run_shell`, `run_python`, `python analysis`, later a plugin host or an MCP server. */
  kind: string;
  /** The process the runner started, leader of its own group; absent until it has been spawned. */
  pid?: number;
  /** The leader's start time (processStartTime): the pid alone may belong to someone else by the next start. */
  start?: string;
  /** `NAME=value` in the environment of everything the run started. */
  tag?: string;
  scratch?: string;
  startedAt: string;
}

/** One run's line in the ledger; rewritten as the run gets a pid, deleted when it is over. */
export interface LedgerEntry {
  update(change: Partial<LedgerRecord>): void;
  remove(): void;
}

/** What the start-up clean-up did about one leftover run. */
export interface Leftover {
  record: LedgerRecord;
  /** Processes found and killed. */
  killed: number;
  /** The scratch folder removed, if there was one. */
  removed?: string;
}

/**
 * The process groups the runner has started and not yet seen end, one small JSON file each under
 * `<data-dir>/run/<owner>/`, where the owner is the gateway process (pid and start time). `kill -9` of the gateway
 * cannot be caught, so its children and scratch folders outlive it: the next start reads what every dead owner
 * left and ends it (`recover`). Files, not the database: they are written before the database opens and by
 * processes that never open it, and each is replaced atomically (write, then rename), so a crash mid-write leaves
 * the previous version or nothing.
 */
/** Numbers the files of this process; shared by every ledger in it (two gateways in one process share an owner). */
let sequence = 0;

export class ProcessLedger {
  readonly #ownerDir: string;
  #open = 0;

  constructor(readonly dir: string) {
    this.#ownerDir = join(dir, ownerName(process.pid, processStartTime(process.pid)));
  }

  add(record: LedgerRecord): LedgerEntry {
    mkdirSync(this.#ownerDir, { recursive: true, mode: 0o700 });
    const file = join(this.#ownerDir, `${++sequence}.json`);
    let current = { ...record };
    let removed = false;
    const write = () => {
      const temporary = `${file}.tmp`;
      writeFileSync(temporary, JSON.stringify(current), { mode: 0o600 });
      renameSync(temporary, file);
    };
    write();
    this.#open += 1;
    const ownerDir = this.#ownerDir;
    const closed = () => {
      // The last one out removes the owner's folder, so a gateway that stopped cleanly leaves run/ empty.
      if (--this.#open > 0) return;
      try {
        rmdirSync(ownerDir);
      } catch {
        // another ledger of this process still has a file in it
      }
    };
    return {
      update(change) {
        if (removed) return;
        current = { ...current, ...change };
        write();
      },
      remove() {
        if (removed) return;
        removed = true;
        rmSync(file, { force: true });
        closed();
      },
    };
  }

  /**
   * Ends what earlier gateways on this data directory left behind: for every owner that is no longer running, kills
   * each recorded run's processes still alive (only while the leader's start time matches, or by the run's tag)
   * and removes its scratch folder. Owners still running (another gateway, a CLI command) are left alone.
   */
  recover(): Leftover[] {
    let owners: string[];
    try {
      owners = readdirSync(this.dir);
    } catch {
      return [];
    }
    const found: Leftover[] = [];
    for (const owner of owners) {
      const parsed = /^(\d+)-(\w+)$/.exec(owner);
      if (!parsed) continue;
      const ownerDir = join(this.dir, owner);
      if (ownerDir === this.#ownerDir || ownerAlive(Number(parsed[1]), parsed[2]!)) continue;
      for (const name of safeList(ownerDir)) {
        if (!name.endsWith('.json')) continue;
        const record = readRecord(join(ownerDir, name));
        if (record) found.push(endLeftover(record));
      }
      rmSync(ownerDir, { recursive: true, force: true });
    }
    return found;
  }
}

function ownerName(pid: number, start: string | undefined): string {
  return `${pid}-${start ?? 'unknown'}`;
}

/** An owner whose start time is unknown counts as alive while its pid is: better a leftover than a wrong kill. */
function ownerAlive(pid: number, start: string): boolean {
  if (start !== 'unknown') return processStartTime(pid) === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readRecord(file: string): LedgerRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' && v.length < 4096 ? v : undefined);
    const pid = typeof value.pid === 'number' && Number.isSafeInteger(value.pid) && value.pid > 1 ? value.pid : undefined;
    return {
      // Shown in the log: no control characters from a file on disk.
      kind: (text(value.kind) ?? 'a process').replace(/[\x00-\x1f\x7f]/g, '?').slice(0, 80),
      ...(pid !== undefined && { pid }),
      ...(text(value.start) && { start: text(value.start)! }),
      ...(text(value.tag) && { tag: text(value.tag)! }),
      ...(text(value.scratch) && { scratch: text(value.scratch)! }),
      startedAt: text(value.startedAt) ?? '',
    };
  } catch {
    return undefined; // half-written or not ours
  }
}

function endLeftover(record: LedgerRecord): Leftover {
  let killed = 0;
  const scratch = record.scratch && looksLikeScratchFolder(record.scratch) ? record.scratch : undefined;
  if (record.pid !== undefined || record.tag || scratch) {
    const tree = new ProcessTree({ leader: record.pid ?? 0, leaderStart: record.start, tag: record.tag, scratch }, false);
    killed = tree.killNow();
  }
  const removed = scratch !== undefined && removeScratchFolderSync(scratch) ? scratch : undefined;
  return { record, killed, ...(removed && { removed }) };
}

/** One log line about what the start-up clean-up did, or undefined when the run had left nothing behind. */
export function describeLeftover({ record, killed, removed }: Leftover): string | undefined {
  const what = `${record.kind}${record.pid !== undefined ? ` (pid ${record.pid})` : ''} started ${record.startedAt || 'at an unknown time'}`;
  const folder = removed ? `scratch folder ${removed} removed` : '';
  if (killed > 0) {
    const processes = `${killed} process${killed === 1 ? '' : 'es'} killed`;
    return `an earlier run of the gateway left ${what} running: ${processes}${folder ? `, ${folder}` : ''}`;
  }
  if (removed) return `an earlier run of the gateway left ${what} behind: ${folder}`;
  return undefined;
}

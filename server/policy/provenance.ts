import { posix } from 'node:path';
import { GatewayError } from '../errors.js';
import type { PolicyDecision, Provenance, RunFile, Subject } from '../decision.js';
import { upFrom } from '../security/shell/runs/found.js';
import { globToRegExp } from '../security/shell/words.js';
import type { CallRecord, FileWrite, Store } from '../store/index.js';

/**
 * Which client wrote the files a command runs. Security: a client may write a Makefile, package.json or conftest.py
 * inside a root without asking, then ask for `make`; the owner, shown only "make", would approve code the client
 * wrote. So every call that writes files through Pincer (file_write; run_shell, for the paths its text names) is
 * noted with its client, and a command whose run files (security/shell/runs/) a client wrote within the window:
 * - carries them on its approval card (`provenance`), newest first;
 * - is never allowed unasked: an analyzer's allow asks, and a standing allow rule made before the write does not
 *   answer for it (rules.ts);
 * - is refused if a client writes one of them after it was judged (while the owner was reading the card).
 *
 * Not seen: files written by other means — a script or interpreter run through run_shell (what it writes cannot be
 * told from its text), run_python, plugin and imported MCP tools, programs outside Pincer. Those calls ask anyway
 * or are the owner's own doing.
 */

/** How long a client's write is named: a working day, so an owner who comes back to a waiting question still sees it. */
export const PROVENANCE_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Rows kept at most (one per file and client): a client copying thousands of files cannot grow the table without end. */
const MAX_ROWS = 10_000;
/** Entries on one card: enough to see what is going on; the reason counts the rest. */
const MAX_SHOWN = 20;

/** What the executor tells of a call that ran (its record, unredacted). */
export type RanCall = Pick<CallRecord, 'id' | 'tool' | 'client' | 'arguments' | 'status' | 'result'> & { error: { name: string } | null };

export interface ProvenanceOptions {
  windowMs?: number;
  maxRows?: number;
  now?: () => number;
}

/** Tool errors after which run_shell started nothing. */
const NOT_STARTED = new Set(['INVALID_ARGUMENTS', 'CWD_NOT_ALLOWED', 'SPAWN_FAILED']);

export class FileProvenance {
  readonly windowMs: number;
  readonly #maxRows: number;
  readonly #now: () => number;

  constructor(
    private readonly store: Pick<Store, 'fileWrites'>,
    options: ProvenanceOptions = {},
  ) {
    this.windowMs = options.windowMs ?? PROVENANCE_WINDOW_MS;
    this.#maxRows = options.maxRows ?? MAX_ROWS;
    this.#now = options.now ?? Date.now;
  }

  /** The files a call's subject runs that clients wrote within the window, newest first. */
  of(subject: Subject | undefined): Provenance[] {
    const runs = subject?.runs;
    if (!runs || runs.length === 0) return [];
    const since = this.#now() - this.windowMs;
    // A write of the file itself or of a folder holding it (a copy into it); for a tree, of anything inside it too.
    const above = new Set<string>();
    for (const run of runs) for (const folder of upFrom(run.path)) above.add(folder);
    const written = new Map<string, FileWrite[]>();
    for (const row of this.store.fileWrites.at([...above], since)) written.set(row.path, [...(written.get(row.path) ?? []), row]);
    const found = new Map<string, Provenance>();
    const add = (run: RunFile, path: string, row: FileWrite) => {
      const entry: Provenance = {
        path,
        by: run.by,
        client: row.client,
        tool: row.tool,
        call_id: row.call_id,
        at: new Date(row.at).toISOString(),
        ...(row.path !== path ? { folder: row.path } : {}),
      };
      const key = `${path}\0${row.client}`;
      const known = found.get(key);
      if (!known || Date.parse(known.at) < row.at) found.set(key, entry);
    };
    for (const run of runs) {
      for (const folder of upFrom(run.path)) for (const row of written.get(folder) ?? []) add(run, run.path, row);
      if (run.tree) {
        const names = run.names?.map((name) => globToRegExp(name));
        for (const row of this.store.fileWrites.under(run.path, since)) {
          if (!names || names.some((re) => re.test(posix.basename(row.path)))) add(run, row.path, row);
        }
      }
    }
    return [...found.values()].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  }

  /**
   * The policy's view: the decision carries what the call runs that clients wrote; one the analyzer would allow
   * asks, naming the file and the client.
   */
  judge(decision: PolicyDecision): PolicyDecision {
    const provenance = this.of(decision.subject);
    if (provenance.length === 0) return decision;
    const subject: Subject = { ...decision.subject, provenance: provenance.slice(0, MAX_SHOWN) };
    if (decision.decision !== 'allow') return { ...decision, subject };
    return {
      decision: 'ask',
      rule: 'provenance:client-written',
      reason: `${describeProvenance(provenance, this.#now())} What it does is that client's doing, so you decide.`,
      subject,
    };
  }

  /**
   * Right before a judged call runs: a client wrote one of its run files since it was judged (while the owner read
   * its card), so what would run is not what was shown.
   */
  changedSince(subject: Subject | undefined): GatewayError | undefined {
    if (!subject?.runs?.length) return undefined;
    const seen = subject.provenance ?? [];
    const shown = new Set(seen.map((p) => `${p.path}\0${p.call_id}`));
    // A card shows the newest MAX_SHOWN: what it left out is older than all it shows, never new.
    const oldest = seen.length >= MAX_SHOWN ? Math.min(...seen.map((p) => Date.parse(p.at))) : -Infinity;
    const fresh = this.of(subject).filter((p) => !shown.has(`${p.path}\0${p.call_id}`) && Date.parse(p.at) > oldest);
    if (fresh.length === 0) return undefined;
    return new GatewayError(
      'FILES_CHANGED',
      `${describeProvenance(fresh, this.#now())} That happened after this call was checked, so it was not run: what was approved is not ` +
        'what would run. Call it again to have it checked (and asked about) with the change.',
      { provenance: fresh.slice(0, MAX_SHOWN) },
    );
  }

  /**
   * After a call ran: notes the files it wrote under its client (an owner's overwrite clears them instead). Only
   * Pincer's own tools (`source` builtin) say what they wrote; what the owner writes is not a client's doing.
   */
  noteRan(call: RanCall, source: string, owner: boolean, subject: Subject | undefined): void {
    if (source !== 'builtin' || (call.tool !== 'file_write' && call.tool !== 'run_shell')) return;
    try {
      const paths = writtenBy(call, subject);
      if (paths.length === 0) return;
      if (owner) {
        // The owner's own file now stands there, unless they only added to what the client wrote.
        const mode = (call.arguments as Record<string, unknown> | null)?.mode;
        if (call.tool === 'file_write' && mode !== 'append') this.store.fileWrites.forget(paths);
        return;
      }
      const at = this.#now();
      this.store.fileWrites.note(
        paths.map((path) => ({ path, client: call.client, tool: call.tool, call_id: call.id, at })),
        at - this.windowMs,
        this.#maxRows,
      );
    } catch (error) {
      // A failure here must not fail the call that already ran; it is loud so it is noticed.
      console.error(`pincer: could not note the files call ${call.id} wrote: ${(error as Error).message}`);
    }
  }
}

/** Real paths a call that ran wrote, as far as it can tell. */
function writtenBy(call: RanCall, subject: Subject | undefined): string[] {
  if (call.tool === 'file_write') {
    const result = call.result as { root?: unknown; path?: unknown } | null;
    if (call.status === 'succeeded' && typeof result?.root === 'string' && typeof result.path === 'string') {
      return [posix.join(result.root, result.path)];
    }
    // Stopped at its deadline or cancelled: the write may have landed all the same.
    if (call.error && (call.error.name === 'TOOL_TIMEOUT' || call.error.name === 'CALL_CANCELLED') && subject?.path) return [subject.path];
    return [];
  }
  if (call.tool === 'run_shell') {
    if (call.error && NOT_STARTED.has(call.error.name)) return [];
    return subject?.writes ?? [];
  }
  return [];
}

/** One sentence per file (the first few), for reasons and refusals. */
export function describeProvenance(entries: readonly Provenance[], now = Date.now()): string {
  const shown = entries.slice(0, 3).map((p) => {
    const how = p.folder ? `copied into ${p.folder}` : 'written';
    return `${p.by} runs ${p.path}, ${how} by client "${p.client}" ${ago(Date.parse(p.at), now)} (${p.tool}, call ${p.call_id}).`;
  });
  const more = entries.length > 3 ? ` ${entries.length - 3} more such files.` : '';
  return `${shown.join(' ')}${more}`;
}

function ago(at: number, now: number): string {
  const minutes = Math.round((now - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 90) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}

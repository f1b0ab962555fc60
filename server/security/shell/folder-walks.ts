import type { ShellPaths } from './named-paths.js';
import type { Judged } from './operand-places.js';
import { linksOut, secretUnder, trackedSecret, type WalkResult, type WalkSpec } from './secret-walk.js';

/**
 * The folder walks one command line needs (secret-walk.ts), for an analysis that reads the line synchronously.
 *
 * Security: a walk visits up to 50,000 entries, about a quarter of a second of work. Done inline, one `grep -r` held
 * the gateway's only thread that long, and a client sending such calls in a loop held every other caller, /health and
 * the approvals with it. So the line is read in rounds: a round answers each walk from what earlier rounds fetched
 * and notes the ones it lacks (answering them as if nothing were found meanwhile); those are then walked
 * asynchronously, a few at a time across the gateway, and the line is read again. Only the last round's verdict
 * counts, and it is one with every walk answered. Nothing is kept between lines: a file created since is seen.
 */
export class FolderWalks {
  readonly #fetched = new Map<string, unknown>();
  readonly #missing = new Map<string, () => Promise<unknown>>();

  constructor(readonly paths: ShellPaths) {}

  /** Whether the last round had every walk it asked for. */
  get complete(): boolean {
    return this.#missing.size === 0;
  }

  secretUnder(start: string, spec: WalkSpec): WalkResult {
    const key = JSON.stringify(['secrets', start, { ...spec, only: spec.only?.map(String) }]);
    return this.#answer<WalkResult>(key, undefined, 'too-many', () => secretUnder(start, spec, this.paths));
  }

  trackedSecret(top: string, prefixes: readonly string[]): WalkResult | 'unknown' {
    const key = JSON.stringify(['tracked', top, prefixes]);
    return this.#answer<WalkResult | 'unknown'>(key, undefined, 'unknown', () => trackedSecret(top, prefixes, this.paths));
  }

  linksOut(folder: string): Judged[] | 'too-many' {
    return this.#answer<Judged[] | 'too-many'>(JSON.stringify(['links', folder]), [], 'too-many', () => linksOut(folder, this.paths));
  }

  /** Runs the walks the last round lacked. A walk that fails for a reason of its own answers `failed`: it asks. */
  async fetchMissing(): Promise<void> {
    const jobs = [...this.#missing];
    this.#missing.clear();
    await Promise.all(
      jobs.map(async ([key, run]) => {
        this.#fetched.set(key, await inTurn(run));
      }),
    );
  }

  #answer<T>(key: string, meanwhile: T, failed: T, walk: () => Promise<T>): T {
    if (this.#fetched.has(key)) return this.#fetched.get(key) as T;
    this.#missing.set(key, () => walk().catch(() => failed));
    return meanwhile;
  }
}

/** Walks running at once, across every analysis: each holds a thread of libuv's small pool while it reads. */
const WALKS_AT_ONCE = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  // A finished walk hands its place straight to the next in line, so none starts past the limit meanwhile.
  if (running >= WALKS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await run();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

import type { HistoryRetention as RetentionWire } from '../contract/settings.js';
import type { CallStore } from './calls.js';
import type { SettingsStore } from './profiles.js';

/** How long history is kept: `retentionDays` 0 means no age limit; `maxRows` undefined means no row limit. */
export interface RetentionPolicy {
  retentionDays: number;
  maxRows: number | undefined;
}

/** The history's retention as GET /settings shows it: the wire contract's. */
export type RetentionView = RetentionWire;

export interface RetentionOptions {
  /**
   * Chat conversations, pruned with the calls of their time (by age only) under the same confirmation: a change of
   * limits that would delete ones the old limits kept waits for the owner like calls do.
   */
  conversations?: { countOlderThan(before: number): number; prune(before: number): number };
  /** Calls deleted per batch; each batch is one short statement. */
  batchSize?: number;
  /** Pause between batches while there is more to delete, so calls are recorded in between. */
  batchPauseMs?: number;
  /** How often the history is checked once it is within its limits. */
  intervalMs?: number;
}

const CONFIRMED_KEY = 'history.pruning_confirmed';
const DAY_MS = 24 * 60 * 60_000;

/**
 * Applies the retention in small batches on an unref'd timer. The first start of a gateway with this setting over a
 * history that already exists does not delete anything until the owner confirms: a default of 90 days must not
 * silently remove the record of what assistants did.
 */
export class HistoryRetention {
  readonly #batchSize: number;
  readonly #batchPauseMs: number;
  readonly #intervalMs: number;
  readonly #conversations: RetentionOptions['conversations'];
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #pruned = 0;
  #lastPrunedAt: number | null = null;

  constructor(
    private readonly calls: CallStore,
    private readonly settings: SettingsStore,
    private policy: RetentionPolicy,
    options: RetentionOptions = {},
  ) {
    this.#batchSize = options.batchSize ?? 500;
    this.#batchPauseMs = options.batchPauseMs ?? 20;
    this.#intervalMs = options.intervalMs ?? 60 * 60_000;
    this.#conversations = options.conversations;
    // First start with this setting: an empty history has nothing to lose; an existing one waits for the owner.
    if (this.settings.get(CONFIRMED_KEY) === undefined) this.settings.set(CONFIRMED_KEY, this.calls.count() === 0 ? 'true' : 'false');
  }

  get confirmed(): boolean {
    return this.settings.get(CONFIRMED_KEY) === 'true';
  }

  /** The owner allows (or withholds) pruning; allowing starts it at once. */
  setConfirmed(confirmed: boolean): void {
    this.settings.set(CONFIRMED_KEY, confirmed ? 'true' : 'false');
    if (!confirmed) return;
    // Conversations go at once (one statement); calls go in batches on the timer.
    this.#pruneConversations();
    if (this.#running) this.#schedule(0);
  }

  /** How many calls the next pruning would delete under `policy` (what a change of the limits would do). */
  prunableUnder(policy: RetentionPolicy, now = Date.now()): number {
    return this.calls.countPrunable(limitsOf(policy, now));
  }

  /** How many calls the current limits keep and `policy` would delete. */
  newlyPrunableUnder(policy: RetentionPolicy, now = Date.now()): number {
    const current = limitsOf(this.policy, now);
    const next = limitsOf(policy, now);
    // A call is prunable when it is older than `before` or beyond the newest `keepRows`: the calls either set of
    // limits deletes are those the later `before` and the smaller `keepRows` delete.
    const either = {
      ...((current.before ?? next.before) !== undefined && { before: Math.max(current.before ?? -1, next.before ?? -1) }),
      ...((current.keepRows ?? next.keepRows) !== undefined && { keepRows: Math.min(current.keepRows ?? Infinity, next.keepRows ?? Infinity) }),
    };
    return this.calls.countPrunable(either) - this.calls.countPrunable(current);
  }

  /** How many chat conversations the current limits keep and `policy` would delete (they go by age only). */
  newlyPrunableConversationsUnder(policy: RetentionPolicy, now = Date.now()): number {
    const current = limitsOf(this.policy, now).before;
    const next = limitsOf(policy, now).before;
    if (!this.#conversations || next === undefined || (current !== undefined && next <= current)) return 0;
    return this.#conversations.countOlderThan(next) - (current === undefined ? 0 : this.#conversations.countOlderThan(current));
  }

  /**
   * New limits, in force at once. `confirmed` is the owner's word given with them: true allows pruning under them;
   * without it, limits that would delete calls the old ones kept withhold pruning until the owner allows it, so
   * lowering the retention never deletes anything silently.
   */
  setPolicy(policy: RetentionPolicy, confirmed?: boolean): void {
    const holdBack = confirmed === undefined && this.confirmed && (this.newlyPrunableUnder(policy) > 0 || this.newlyPrunableConversationsUnder(policy) > 0);
    this.policy = { ...policy };
    if (confirmed !== undefined) this.setConfirmed(confirmed);
    else if (holdBack) this.setConfirmed(false);
    else if (this.confirmed) this.setConfirmed(true);
  }

  start(): void {
    this.#running = true;
    this.#schedule(0);
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
  }

  /** Deletes one batch if pruning is allowed (and, with the last batch, the conversations); answers how many calls went. */
  pruneOnce(now = Date.now()): number {
    if (!this.confirmed) return 0;
    const removed = this.calls.pruneBatch(this.#limits(now), this.#batchSize);
    if (removed > 0) {
      this.#pruned += removed;
      this.#lastPrunedAt = now;
    }
    if (removed < this.#batchSize) this.#pruneConversations(now);
    return removed;
  }

  #pruneConversations(now = Date.now()): void {
    const before = this.#limits(now).before;
    if (this.#conversations && before !== undefined) this.#conversations.prune(before);
  }

  view(now = Date.now()): RetentionView {
    return {
      retention_days: this.policy.retentionDays,
      max_rows: this.policy.maxRows ?? null,
      pruning_confirmed: this.confirmed,
      prunable: this.calls.countPrunable(this.#limits(now)),
      pruned: this.#pruned,
      last_pruned_at: this.#lastPrunedAt === null ? null : new Date(this.#lastPrunedAt).toISOString(),
    };
  }

  #limits(now: number) {
    return limitsOf(this.policy, now);
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delayMs);
    this.#timer.unref();
  }

  #tick(): void {
    if (!this.#running) return;
    let removed = 0;
    try {
      removed = this.pruneOnce();
    } catch (error) {
      // A busy or full database: try again at the next interval rather than stop keeping the history bounded.
      console.error(`pincer: could not prune the call history: ${(error as Error).message}`);
    }
    this.#schedule(removed === this.#batchSize ? this.#batchPauseMs : this.#intervalMs);
  }
}

function limitsOf(policy: RetentionPolicy, now: number) {
  return {
    ...(policy.retentionDays > 0 && { before: now - policy.retentionDays * DAY_MS }),
    ...(policy.maxRows !== undefined && { keepRows: policy.maxRows }),
  };
}

import { GatewayError, refuse } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import type { PolicyDecision } from '../decision.js';
import type { CallRecord, Store } from '../store/index.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';
import type { SandboxGrant } from '../tools/types.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { ClientAccess } from '../policy/access.js';
import type { RuleBook } from '../policy/rules.js';
import type { FileProvenance } from '../policy/provenance.js';
import { Redactor } from '../util/redact.js';
import { callKey } from '../util/call-key.js';
import { refusalForClient } from '../approvals/client-view.js';
import { askOwner } from './ask-owner.js';
import { ResultCache } from './cache.js';
import { newRecord, type CallOutcome, type CallRequest } from './call.js';
import { CallLog, type CallEvents } from './call-log.js';
import type { Cancellation } from './cancellation.js';
import { decide, prepareCall } from './prepare.js';
import { CallCancelled, runHandler } from './run.js';
import { grantFor } from './sandbox-grant.js';

export { newCallId, type CallOutcome, type CallRequest, type Envelope } from './call.js';

export interface ExecutorOptions {
  registry: ToolRegistry;
  store: Store;
  /** Where calls and their live output are announced (the gateway's event bus). */
  events: CallEvents;
  policy: Policy;
  cache?: ResultCache;
  defaultTimeoutMs: number;
  maxOutputBytes: number;
  /** Puts "ask" calls to the owner; without one, such calls are refused with APPROVAL_REQUIRED. */
  approvals?: ApprovalBroker;
  /** The owner's rules, to count their uses. */
  rules?: RuleBook;
  /** The pause switch and per-client tool sets. */
  access?: ClientAccess;
  /** Whether sandboxed tools really run in an OS sandbox here (for what their approvals say). */
  sandboxAvailable?: boolean;
  /** Which client wrote the files a command runs: told what each call wrote, asked before each runs. */
  provenance?: FileProvenance;
  /** What history, events and approval cards show of a call (default: secrets found by key name and shape). */
  redactor?: Redactor;
}

/**
 * The one pipeline every caller goes through:
 * resolve → validate → policy → (approval) → cache → run → record → event.
 * Nothing else in the gateway runs a tool.
 */
export class Executor {
  readonly cache: ResultCache;
  /** Applied to everything about a call that is recorded or shown; the caller's own answer is left whole. */
  readonly redactor: Redactor;
  readonly #log: CallLog;
  readonly #inFlight = new Map<string, InFlight>();
  /** Writes calls that run long to history as running: one timer for all of them, only while any are running. */
  #runningSweep: NodeJS.Timeout | undefined;
  /** Every call between arrival and answer, waiting for approval included: shutdown waits for all of them. */
  readonly #calls = new Set<Promise<CallOutcome>>();
  /** Clients whose token was revoked: when, and what their calls begun before then are told at their next step. */
  readonly #revoked = new Map<string, { at: number; why: string }>();
  #stopping = false;

  constructor(private readonly options: ExecutorOptions) {
    this.cache = options.cache ?? new ResultCache();
    this.redactor = options.redactor ?? new Redactor();
    this.#log = new CallLog(options.store, options.events, this.redactor);
  }

  /** Runs one call to completion; never throws for anything a caller did. */
  execute(request: CallRequest): Promise<CallOutcome> {
    const call = this.#execute(request);
    this.#calls.add(call);
    void call.finally(() => this.#calls.delete(call));
    return call;
  }

  async #execute(request: CallRequest): Promise<CallOutcome> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const record = newRecord(request, startedAt);
    if (this.#stopping) {
      return this.#log.refuse(record, t0, refuse.callCancelled('The gateway is shutting down; try again once it is back.'));
    }

    // Resolve and validate.
    const prepared = prepareCall(this.options.registry, this.options.access, request);
    if (prepared instanceof GatewayError) {
      // Security: text that is not even JSON cannot be redacted (a secret in it has no key to match), so history
      // never keeps it; nor arguments no tool took that are too big to be worth keeping (a megabyte object of 70,000
      // keys cost ~0.5 s to redact, on every read of the history again, and as much disk, call after call).
      if (request.argumentsError !== undefined || !keptWhenRefused(request.arguments)) record.arguments = null;
      return this.#log.refuse(record, t0, prepared);
    }
    const { tool, args } = prepared;
    record.arguments = args;

    // Policy.
    const decision = await decide(this.options.policy, { tool, arguments: args, client: request.client });
    record.decision = decision.decision;
    record.rule = decision.rule;
    record.reason = decision.reason;
    // The rule that decided a real call (allow, ask or deny) is used; a dry run never counts.
    if (decision.rule.startsWith('rule:')) this.options.rules?.noteUse(decision.rule);
    if (decision.decision === 'deny') {
      return this.#log.refuse(record, t0, new GatewayError('POLICY_DENIED', refusalMessage(decision), { rule: decision.rule }), 'denied');
    }
    // Security: the token was revoked while the policy judged the call (a shell check can take a while).
    let revoked = this.#revokedSince(request.client, startedAt);
    if (revoked) return this.#log.refuse(record, t0, revoked, 'cancelled');

    // Approval.
    if (decision.decision === 'ask') {
      const step = { broker: this.options.approvals, redactor: this.redactor, sandboxAvailable: this.options.sandboxAvailable === true, log: this.#log };
      const refusal = await askOwner(step, tool, args, record, request, decision);
      if (refusal) return this.#log.refuse(record, t0, refusal.error, refusal.status);
    }
    revoked = this.#revokedSince(request.client, startedAt);
    if (revoked) return this.#log.refuse(record, t0, revoked, 'cancelled');
    // Security: a client wrote a file this command runs after it was judged (while the owner read the card).
    const changed = this.options.provenance?.changedSince(decision.subject);
    if (changed) return this.#log.refuse(record, t0, changed, 'denied', request.owner ? changed : refusalForClient(changed, request.client));
    // The owner or a standing rule said yes to what this call reaches: the sandbox is widened to exactly that.
    const widened = decision.decision === 'ask' || decision.rule.startsWith('rule:');
    const grant = tool.definition.sandboxed && widened ? grantFor(decision.subject) : undefined;

    // Cache, run, record, event.
    const outcome = await this.#run(tool, args, record, request, performance.now(), grant);
    this.options.provenance?.noteRan(record, tool.source, request.owner === true, decision.subject);
    return outcome;
  }

  /**
   * What the policy would decide for a call, without running or recording anything (`POST /policy/check`).
   * Unknown tools, disabled tools and bad arguments are refused exactly as a real call would be.
   */
  async dryRun(request: Pick<CallRequest, 'tool' | 'arguments' | 'client' | 'owner'>): Promise<PolicyDecision> {
    const prepared = prepareCall(this.options.registry, this.options.access, request);
    if (prepared instanceof GatewayError) throw prepared;
    return decide(this.options.policy, { tool: prepared.tool, arguments: prepared.args, client: request.client });
  }

  /**
   * A client's token was revoked at `revokedAt` (epoch ms): the calls it started until then are cancelled, recorded
   * as such — running ones at once, ones still being judged or waiting for the owner at their next step. Answers how
   * many were running.
   */
  cancelClient(client: string, revokedAt: number, why: string): number {
    if (revokedAt > (this.#revoked.get(client)?.at ?? -Infinity)) this.#revoked.set(client, { at: revokedAt, why });
    const started = [...this.#inFlight.values()].filter((e) => e.record.client === client && Date.parse(e.record.started_at) <= revokedAt);
    for (const entry of started) entry.cancellation.cancel(new CallCancelled(why));
    return started.length;
  }

  /** The refusal for a call `client` began at `startedAt` when its token has been revoked since; else undefined. */
  #revokedSince(client: string, startedAt: number): GatewayError | undefined {
    if (this.#revoked.size === 0) return undefined;
    const revoked = this.#revoked.get(client);
    return revoked && startedAt <= revoked.at ? refuse.callCancelled(revoked.why) : undefined;
  }

  /** A call still running, for `GET /calls/{id}` before it is recorded. */
  inFlight(id: string): CallRecord | undefined {
    const entry = this.#inFlight.get(id);
    return entry ? this.redactor.record(entry.record) : undefined;
  }

  /** The client that made a call still under way (its live output names only the call), or undefined. */
  clientOf(id: string): string | undefined {
    return this.#inFlight.get(id)?.record.client;
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /**
   * Stops taking calls, lets running ones finish for `graceMs`, then cancels the rest; every one of them is
   * recorded before this resolves.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.#stopping = true;
    // Questions no one will answer now: their calls are refused (and recorded) at once.
    this.options.approvals?.cancelAll();
    const running = () => [...this.#inFlight.values()].map((e) => e.completion);
    if (this.#inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled(running()), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const entry of this.#inFlight.values()) entry.cancellation.cancel(new CallCancelled('gateway stopping'));
    }
    await Promise.allSettled([...this.#calls]);
  }

  /** Answers from the cache when it may, else runs the tool; either way the call is recorded and announced. */
  async #run(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    record: CallRecord,
    request: Pick<CallRequest, 'signal' | 'noCache' | 'onProgress'>,
    t0: number,
    grant?: SandboxGrant,
  ): Promise<CallOutcome> {
    const def = tool.definition;
    // Security: kept per client. Shared, a client limited to its own calls learned another's exact calls from
    // `cached: true` (a web search's query, a quote's symbol), one guess at a time.
    const key = def.cache ? `${callKey(def.name, args)}\u0000${record.client}` : undefined;
    if (key && !request.noCache) {
      const hit = this.cache.get(key);
      if (hit) {
        record.cache_hit = true;
        return this.#log.finish(record, t0, { ok: true, result: hit.value });
      }
    }
    const step = { defaultTimeoutMs: this.options.defaultTimeoutMs, maxOutputBytes: this.options.maxOutputBytes, redactor: this.redactor, log: this.#log };
    const keep = key ? (result: unknown) => this.cache.set(key, result, def.cache!.ttl_s * 1000) : undefined;
    const running = runHandler(step, def, args, record, request, grant, keep);
    const completion = (async (): Promise<CallOutcome> => {
      const answer = await this.#log.finish(record, t0, await running.outcome);
      this.#inFlight.delete(record.id);
      return answer;
    })();
    this.#inFlight.set(record.id, { record, cancellation: running.cancellation, completion, since: t0, written: false });
    this.#sweepRunning();
    this.#log.announce('started', record);
    return completion;
  }

  /**
   * A call that takes a while is written down as running, so it shows in the history and, should the process die,
   * is found and marked cancelled at the next start. Most calls end long before; they are never written twice.
   */
  #sweepRunning(): void {
    if (this.#runningSweep) return;
    this.#runningSweep = setInterval(() => {
      const due = performance.now() - RECORD_RUNNING_AFTER_MS;
      for (const call of this.#inFlight.values()) {
        if (call.written || call.since > due || call.record.finished_at !== null) continue;
        call.written = true;
        this.#log.saveRunning(call.record);
      }
      if (this.#inFlight.size === 0) {
        clearInterval(this.#runningSweep);
        this.#runningSweep = undefined;
      }
    }, RECORD_RUNNING_AFTER_MS / 2);
    this.#runningSweep.unref();
  }
}

/** Calls still running after this long (ms) are written to history as running. */
const RECORD_RUNNING_AFTER_MS = 100;

interface InFlight {
  record: CallRecord;
  cancellation: Cancellation;
  completion: Promise<CallOutcome>;
  /** performance.now() when the tool started. */
  since: number;
  /** Already written to history as running. */
  written: boolean;
}

/** The most of a refused call's arguments (as JSON) the history keeps. */
const REFUSED_ARGUMENTS_KEPT = 64 * 1024;

function keptWhenRefused(args: unknown): boolean {
  if (typeof args === 'string') return args.length <= REFUSED_ARGUMENTS_KEPT;
  if (typeof args !== 'object' || args === null) return true;
  try {
    return JSON.stringify(args).length <= REFUSED_ARGUMENTS_KEPT;
  } catch {
    return false;
  }
}

function refusalMessage(decision: PolicyDecision): string {
  return `Refused by rule ${decision.rule}: ${decision.reason}`;
}

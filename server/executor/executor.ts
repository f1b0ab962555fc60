import { randomUUID } from 'node:crypto';
import { errorBody, GatewayError, refuse, ToolError, type ErrorBody } from '../errors.js';
import type { CallPhase, EventBus } from '../events/bus.js';
import type { Policy, PolicyInput } from '../policy/policy.js';
import type { PolicyDecision, Subject } from '../decision.js';
import type { CallRecord, CallRecovery, CallStatus, Store } from '../store/index.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';
import type { ProgressUpdate, SandboxGrant } from '../tools/types.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { ClientAccess } from '../policy/access.js';
import type { RuleBook } from '../policy/rules.js';
import type { FileProvenance } from '../policy/provenance.js';
import { Redactor } from '../util/redact.js';
import { callKey } from '../util/call-key.js';
import { ResultCache } from './cache.js';
import { CallClock } from './call-clock.js';
import { Cancellation, type CallerSignal } from './cancellation.js';

export interface CallRequest {
  tool: string;
  arguments: unknown;
  /** Who asked: a client name, or "owner". */
  client: string;
  /** Which door the call came through (http, tool_calls, cli, mcp, llm…), for the log. */
  via: string;
  /** Aborts the call when the caller goes away (an AbortSignal, or a lighter CallerGone). */
  signal?: CallerSignal;
  /** Set when the caller's arguments could not even be decoded (a tool_call's JSON string); the call is refused. */
  argumentsError?: string;
  /** True for the owner's own calls (dashboard, tray): no per-client tool set applies. */
  owner?: boolean;
  /** Called once the call waits for the owner's approval (lets a route answer 202 at once). */
  onPending?: (pending: { approval_id: string; call_id: string }) => void;
  /** The caller wants a fresh answer (`Cache-Control: no-cache`): the tool runs, and its answer refreshes the cache. */
  noCache?: boolean;
  /** Receives the running tool's progress reports (only tools that report any call it). */
  onProgress?: (update: ProgressUpdate) => void;
  /** How a model's call was recovered or mended before it came here (the LLM bridge), kept with the record. */
  recovery?: CallRecovery;
}

export type Envelope =
  | { success: true; result: unknown; duration_ms: number; cached: boolean; call_id: string }
  | { success: false; error: ErrorBody; duration_ms?: number; call_id: string };

export interface CallOutcome {
  callId: string;
  status: CallStatus;
  /** Whether the gateway accepted the call: 200 even when the tool ran and failed. */
  httpStatus: number;
  envelope: Envelope;
}

export interface ExecutorOptions {
  registry: ToolRegistry;
  store: Store;
  events: EventBus;
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

/** Calls still running after this long are written to history as running. */
const RECORD_RUNNING_AFTER_MS = 100;

class CallTimeout extends Error {}
class CallCancelled extends Error {}

/** Sortable, unique call ids: time first so ids of one run read in order. */
export function newCallId(now = Date.now()): string {
  // randomUUID draws from a pooled entropy buffer: far cheaper per call than randomBytes.
  return `c_${now.toString(36)}${randomUUID().slice(0, 8)}`;
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
  readonly #inFlight = new Map<string, { record: CallRecord; cancellation: Cancellation; completion: Promise<CallOutcome> }>();
  /** Every call between arrival and answer, waiting for approval included: shutdown waits for all of them. */
  readonly #calls = new Set<Promise<CallOutcome>>();
  #stopping = false;

  constructor(private readonly options: ExecutorOptions) {
    this.cache = options.cache ?? new ResultCache();
    this.redactor = options.redactor ?? new Redactor();
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
    const callId = newCallId(startedAt);
    const record: CallRecord = {
      id: callId,
      tool: request.tool,
      client: request.client,
      via: request.via,
      arguments: request.arguments,
      result: null,
      status: 'running',
      error: null,
      http_status: null,
      decision: null,
      rule: null,
      reason: null,
      cache_hit: false,
      started_at: new Date(startedAt).toISOString(),
      finished_at: null,
      duration_ms: null,
      ...(request.recovery && { ...(request.recovery.shape !== undefined && { recovered: true as const }), recovery: request.recovery }),
    };

    if (this.#stopping) {
      return this.#refuse(record, t0, new GatewayError('CALL_CANCELLED', 503, 'The gateway is shutting down; try again once it is back.'));
    }

    const prepared = this.#prepare(request);
    if (prepared instanceof GatewayError) {
      // Security: text that is not even JSON cannot be redacted (a secret in it has no key to match), so history
      // never keeps it.
      if (request.argumentsError !== undefined) record.arguments = null;
      return this.#refuse(record, t0, prepared);
    }
    const { tool, args } = prepared;
    record.arguments = args;

    const decision = await this.#decide({ tool, arguments: args, client: request.client });
    Object.assign(record, { decision: decision.decision, rule: decision.rule, reason: decision.reason });
    // The rule that decided a real call (allow, ask or deny) is used; a dry run never counts.
    if (decision.rule.startsWith('rule:')) this.options.rules?.noteUse(decision.rule);
    if (decision.decision === 'deny') {
      return this.#refuse(record, t0, new GatewayError('POLICY_DENIED', 403, refusalMessage(decision), { rule: decision.rule }), 'denied');
    }
    if (decision.decision === 'ask') {
      const approved = await this.#askOwner(tool, args, record, request, t0, decision);
      if (approved) return approved;
    }
    // Security: a client wrote a file this command runs after it was judged (while the owner read the card).
    const changed = this.options.provenance?.changedSince(decision.subject);
    if (changed) return this.#refuse(record, t0, changed, 'denied');
    // The owner or a standing rule said yes to what this call reaches: the sandbox is widened to exactly that.
    const widened = decision.decision === 'ask' || decision.rule.startsWith('rule:');
    const grant = tool.definition.sandboxed && widened ? grantFor(decision.subject) : undefined;

    const outcome = await this.#run(tool, args, record, request, performance.now(), grant);
    this.options.provenance?.noteRan(record, tool.source, request.owner === true, decision.subject);
    return outcome;
  }

  /**
   * Puts the call to the owner and waits. Resolves undefined when the owner allowed it (the call then runs), or the
   * refusal to answer with.
   */
  async #askOwner(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    record: CallRecord,
    request: CallRequest,
    t0: number,
    decision: PolicyDecision,
  ): Promise<CallOutcome | undefined> {
    const broker = this.options.approvals;
    const rule = { rule: record.rule };
    if (!broker) {
      return this.#refuse(record, t0, new GatewayError('APPROVAL_REQUIRED', 403, `${record.reason} No one can approve it here, so the call was not run.`, rule), 'denied');
    }
    let opened: ReturnType<ApprovalBroker['open']>;
    try {
      opened = broker.open({
        callId: record.id,
        tool: tool.definition.name,
        client: record.client,
        arguments: this.redactor.record(record).arguments,
        rawArguments: args,
        risk: tool.definition.risk,
        source: tool.source,
        decision: { decision: 'ask', rule: record.rule!, reason: this.redactor.text(record.reason!) },
        subject: decision.subject ?? {},
        ...(tool.definition.sandboxed ? { sandbox: this.redactor.text(sandboxNote(decision.subject, this.options.sandboxAvailable === true)) } : {}),
      });
    } catch (error) {
      if (error instanceof GatewayError) return this.#refuse(record, t0, error, 'denied');
      throw error;
    }
    const approvalId = opened.approval.id;
    record.status = 'pending';
    this.#saveRunning(record);
    this.#emit('pending', record);
    // A caller that hangs up while waiting no longer wants the answer: the question is withdrawn.
    const onCallerGone = () => broker.withdraw(approvalId);
    request.signal?.addEventListener('abort', onCallerGone, { once: true });
    try {
      request.onPending?.({ approval_id: approvalId, call_id: record.id });
    } catch (error) {
      console.error(`pincer: a pending-call listener failed: ${(error as Error).message}`);
    }
    const resolution = await opened.settled;
    request.signal?.removeEventListener('abort', onCallerGone);
    record.status = 'running';
    switch (resolution.outcome) {
      case 'allowed':
        Object.assign(record, { rule: resolution.rule, reason: `Approved by the owner. (${record.reason})` });
        return undefined;
      case 'denied':
        Object.assign(record, { rule: resolution.rule });
        return this.#refuse(
          record,
          t0,
          new GatewayError(
            'APPROVAL_DENIED',
            403,
            `The owner denied this call${resolution.message ? `: ${resolution.message}` : '.'} Do not retry it unchanged.`,
            { approval_id: approvalId, rule: resolution.rule },
          ),
          'denied',
        );
      case 'expired':
        return this.#refuse(
          record,
          t0,
          new GatewayError('APPROVAL_TIMEOUT', 403, 'The owner did not answer in time, so the call was not run. Ask them before trying again.', {
            approval_id: approvalId,
          }),
          'denied',
        );
      case 'cancelled':
        return this.#refuse(record, t0, new GatewayError('CALL_CANCELLED', 503, 'The call was withdrawn before the owner answered (the caller left or the gateway stopped).'), 'cancelled');
    }
  }

  /**
   * What the policy would decide for a call, without running or recording anything (`POST /policy/check`).
   * Unknown tools, disabled tools and bad arguments are refused exactly as a real call would be.
   */
  async dryRun(request: Pick<CallRequest, 'tool' | 'arguments' | 'client' | 'owner'>): Promise<PolicyDecision> {
    const prepared = this.#prepare({ ...request, via: 'policy-check' });
    if (prepared instanceof GatewayError) throw prepared;
    return this.#decide({ tool: prepared.tool, arguments: prepared.args, client: request.client });
  }

  /** Resolve and validate: the steps before policy, shared by real calls and dry runs. */
  #prepare(request: CallRequest): { tool: RegisteredTool; args: Record<string, unknown> } | GatewayError {
    const tool = this.options.registry.get(request.tool);
    if (!tool) {
      const held = this.options.registry.held(request.tool);
      return held ? refuse.toolHeld(request.tool, held.message, held.source) : refuse.toolNotFound(request.tool);
    }
    if (!this.options.registry.isEnabled(tool.definition.name)) return refuse.toolDisabled(request.tool);
    const denied = this.options.access?.refusal(request.client, tool.definition.name, request.owner === true);
    if (denied) return denied;
    if (request.argumentsError !== undefined) {
      return new GatewayError('INVALID_ARGUMENTS', 400, `Invalid arguments for "${request.tool}": ${request.argumentsError}`, {
        errors: [{ path: '', message: request.argumentsError }],
      });
    }
    const args = request.arguments === undefined ? {} : request.arguments;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return new GatewayError('INVALID_ARGUMENTS', 400, `Arguments for "${request.tool}" must be a JSON object.`, {
        errors: [{ path: '', message: 'arguments must be an object' }],
      });
    }
    const checked = tool.validate(args); // applies schema defaults in place
    if (!checked.ok) {
      return new GatewayError(
        'INVALID_ARGUMENTS',
        400,
        `Invalid arguments for "${request.tool}": ${checked.problems.map((p) => p.message).join('; ')}.`,
        { errors: checked.problems },
      );
    }
    return { tool, args: args as Record<string, unknown> };
  }

  /** The policy's verdict; a policy that fails cannot say yes, so the call falls to a human. */
  async #decide(input: PolicyInput): Promise<PolicyDecision> {
    try {
      return await this.options.policy.decide(input);
    } catch (error) {
      console.error(`pincer: the policy failed on a call to ${input.tool.definition.name}:`, error);
      return {
        decision: 'ask',
        rule: 'policy:error',
        reason: `The safety check for ${input.tool.definition.name} failed (${(error as Error).message}), so a person must decide.`,
      };
    }
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


  async #run(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    record: CallRecord,
    request: Pick<CallRequest, 'signal' | 'noCache' | 'onProgress'>,
    t0: number,
    grant?: SandboxGrant,
  ): Promise<CallOutcome> {
    const def = tool.definition;
    const callerSignal = request.signal;
    const key = def.cache ? callKey(def.name, args) : undefined;
    if (key && !request.noCache) {
      const hit = this.cache.get(key);
      if (hit) {
        record.cache_hit = true;
        return this.#finish(record, t0, { ok: true, result: hit.value });
      }
    }

    const cancellation = new Cancellation();
    let over = false;
    // Live output is shown to every viewer of the event stream: redacted, a line at a time.
    const liveOutput = this.redactor.stream();
    const timeoutMs = def.timeoutMs ?? this.options.defaultTimeoutMs;
    const clock = new CallClock(timeoutMs, () => cancellation.cancel(new CallTimeout()));
    const onCallerGone = () => cancellation.cancel(new CallCancelled('caller went away'));
    callerSignal?.addEventListener('abort', onCallerGone, { once: true });
    if (callerSignal?.aborted) onCallerGone();

    const done = Promise.race([
      Promise.resolve().then(() => {
        // The caller may be gone (or the gateway stopping) before the handler's turn comes: a write tool must not
        // act for nobody.
        if (cancellation.cancelled) throw cancellation.reason;
        return def.handler(args, {
          // A getter: the AbortSignal is made only for a tool that looks at it.
          get signal() {
            return cancellation.signal;
          },
          callId: record.id,
          client: record.client,
          output: (chunk) => this.#emitOutput(record.id, def.name, liveOutput.push(chunk)),
          waitingForOwner: (wait) => {
            const resume = clock.pause();
            return wait.finally(resume);
          },
          ...(grant ? { grant } : {}),
          ...(request.onProgress ? { progress: progressReporter(request.onProgress, () => over || cancellation.cancelled) } : {}),
        });
      }),
      cancellation.rejection,
    ]);
    // A call that takes a while is written down as running, so it shows in the history and, should the process
    // die, is found and marked cancelled at the next start.
    const persistRunning = setTimeout(() => this.#saveRunning(record), RECORD_RUNNING_AFTER_MS);
    const completion = (async (): Promise<CallOutcome> => {
      let outcome: RunOutcome;
      try {
        const result = await done;
        outcome = this.#checkOutput(def.name, result, def.maxOutputBytes ?? this.options.maxOutputBytes);
        if (outcome.ok && key) this.cache.set(key, result, def.cache!.ttl_s * 1000);
      } catch (error) {
        outcome = { ok: false, ...describeFailure(error, def.name, timeoutMs) };
      } finally {
        over = true;
        clock.stop();
        clearTimeout(persistRunning);
        callerSignal?.removeEventListener('abort', onCallerGone);
        this.#emitOutput(record.id, def.name, liveOutput.end());
      }
      const answer = await this.#finish(record, t0, outcome);
      this.#inFlight.delete(record.id);
      return answer;
    })();
    this.#inFlight.set(record.id, { record, cancellation, completion });
    this.#emit('started', record);
    return completion;
  }

  #checkOutput(name: string, result: unknown, maxBytes: number): RunOutcome {
    const size = Buffer.byteLength(JSON.stringify(result ?? null));
    if (size <= maxBytes) return { ok: true, result: result ?? null };
    return {
      ok: false,
      status: 'failed',
      httpStatus: 200,
      error: errorBody(
        'OUTPUT_TOO_LARGE',
        `"${name}" produced ${size} bytes, more than the ${maxBytes}-byte limit; ask for less (a narrower query, a smaller range).`,
        { bytes: size, limit: maxBytes },
      ),
    };
  }

  async #finish(record: CallRecord, t0: number, outcome: RunOutcome): Promise<CallOutcome> {
    const duration = round(performance.now() - t0);
    record.finished_at = new Date().toISOString();
    record.duration_ms = duration;
    let envelope: Envelope;
    if (outcome.ok) {
      record.status = 'succeeded';
      record.http_status = 200;
      record.result = outcome.result;
      envelope = { success: true, result: outcome.result, duration_ms: duration, cached: record.cache_hit, call_id: record.id };
    } else {
      record.status = outcome.status;
      record.http_status = outcome.httpStatus;
      record.error = { name: outcome.error.name, message: outcome.error.message };
      envelope = { success: false, error: outcome.error, duration_ms: duration, call_id: record.id };
    }
    await this.#record(record);
    return { callId: record.id, status: record.status, httpStatus: record.http_status, envelope };
  }

  /** Refused before running: recorded like any other call so the log shows every attempt. */
  async #refuse(record: CallRecord, t0: number, refusal: GatewayError, status: CallStatus = 'failed'): Promise<CallOutcome> {
    record.status = status;
    record.http_status = refusal.status;
    record.error = { name: refusal.errorName, message: refusal.message };
    record.finished_at = new Date().toISOString();
    record.duration_ms = round(performance.now() - t0);
    await this.#record(record);
    return {
      callId: record.id,
      status,
      httpStatus: refusal.status,
      envelope: { success: false, error: refusal.toBody(), call_id: record.id },
    };
  }

  /** Commits the finished call (redacted) to history, then announces it: the caller hears only of what is kept. */
  async #record(record: CallRecord): Promise<void> {
    const stored = this.redactor.record(record);
    try {
      await this.options.store.calls.saveSoon(stored);
    } catch (error) {
      // The caller still gets its answer; the failure is loud on stderr so a full disk is noticed.
      console.error(`pincer: could not record call ${record.id}: ${(error as Error).message}`);
    }
    this.#emit(record.status as CallPhase, record, stored);
  }

  /** Writes a call still running to history, so it shows there and a crash leaves a trace of it. */
  #saveRunning(record: CallRecord): void {
    try {
      this.options.store.calls.save(this.redactor.record(record));
    } catch (error) {
      console.error(`pincer: could not record running call ${record.id}: ${(error as Error).message}`);
    }
  }

  #emitOutput(callId: string, tool: string, chunk: string): void {
    if (chunk === '') return;
    try {
      this.options.events.emit('output', { call_id: callId, tool, chunk });
    } catch (error) {
      console.error(`pincer: an output listener failed on call ${callId}: ${(error as Error).message}`);
    }
  }

  /** Listeners (SSE, tray) must never break a call: one that throws is reported and ignored. */
  #emit(phase: CallPhase, record: CallRecord, redacted?: CallRecord): void {
    if (this.options.events.listenerCount('call') === 0) return;
    try {
      this.options.events.emit('call', { phase, call: redacted ?? this.redactor.record(record) });
    } catch (error) {
      console.error(`pincer: an event listener failed on call ${record.id}: ${(error as Error).message}`);
    }
  }
}

type RunOutcome =
  | { ok: true; result: unknown }
  | { ok: false; status: CallStatus; httpStatus: number; error: ErrorBody };

function describeFailure(error: unknown, tool: string, timeoutMs: number): Omit<Extract<RunOutcome, { ok: false }>, 'ok'> {
  if (error instanceof CallTimeout) {
    return {
      status: 'failed',
      httpStatus: 200,
      error: errorBody('TOOL_TIMEOUT', `"${tool}" did not finish within ${timeoutMs} ms and was stopped.`, { timeout_ms: timeoutMs }),
    };
  }
  if (error instanceof CallCancelled) {
    return {
      status: 'cancelled',
      httpStatus: 503,
      error: errorBody('CALL_CANCELLED', `The call to "${tool}" was cancelled (${error.message}).`),
    };
  }
  if (error instanceof ToolError) return { status: 'failed', httpStatus: 200, error: error.toBody() };
  // An unexpected throw is a bug in the tool; its message can help the model, its stack stays here.
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 'failed',
    httpStatus: 200,
    error: errorBody('TOOL_EXECUTION_ERROR', `"${tool}" failed: ${message}`),
  };
}

function refusalMessage(decision: PolicyDecision): string {
  return `Refused by rule ${decision.rule}: ${decision.reason}`;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** What an allowed call of a sandboxed tool may reach: the paths, network and reach its analyzer found. */
function grantFor(subject: Subject | undefined): SandboxGrant {
  const outside = subject?.outside ?? [];
  return {
    reads: outside.filter((p) => p.access === 'read').map((p) => p.path),
    writes: outside.filter((p) => p.access === 'write').map((p) => p.path),
    network: subject?.network === true,
    unsandboxed: subject?.reach === 'unknown',
  };
}

/** For the approval card: how the call will run if the owner allows it. */
function sandboxNote(subject: Subject | undefined, available: boolean): string {
  if (!available) return 'There is no OS sandbox on this machine: if you allow it, only your approval stands between it and the machine.';
  const grant = grantFor(subject);
  if (grant.unsandboxed) {
    return 'If you allow it, it runs outside the sandbox: what it will read, write or connect to cannot be told from the command.';
  }
  const extra = [
    ...(grant.reads.length ? [`read ${grant.reads.join(', ')}`] : []),
    ...(grant.writes.length ? [`write ${grant.writes.join(', ')}`] : []),
    ...(grant.network ? ['use the network'] : []),
  ];
  return extra.length
    ? `If you allow it, it runs in the sandbox, which then also lets it ${extra.join('; ')}.`
    : 'If you allow it, it runs in the sandbox: the allowed folders only, no network.';
}

/**
 * The caller's progress listener as a tool sees it: reports stop once the call is over (a late one from a server
 * must not reach a caller that already has its answer), and a failing listener never fails the call.
 */
function progressReporter(listener: (update: ProgressUpdate) => void, ended: () => boolean): (update: ProgressUpdate) => void {
  return (update) => {
    if (ended()) return;
    try {
      listener(update);
    } catch {
      // The caller's business; the tool goes on.
    }
  };
}

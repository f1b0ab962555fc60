import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { GatewayError, refuse } from '../errors.js';
import type { PolicyDecision, Provenance, Subject } from '../decision.js';
import type { RuleBook } from '../policy/rules.js';
import { redactSecrets } from '../util/redact.js';
import type { ApprovalDecision, ApprovalRecord, Rule, RuleScope, Store } from '../store/index.js';
import type { Redactor } from '../util/redact.js';

/** How a wait for the owner ended. */
export type Resolution =
  | { outcome: 'allowed'; rule: string }
  | { outcome: 'denied'; message: string | null; rule: string }
  | { outcome: 'expired' }
  | { outcome: 'cancelled' };

export interface ApprovalRequest {
  callId: string;
  tool: string;
  client: string;
  /** Redacted, as shown to the owner (like `decision.reason` and `sandbox`). */
  arguments: unknown;
  /** Unredacted, for building an exact rule. */
  rawArguments: Record<string, unknown>;
  risk: string;
  /** Where the tool comes from: `builtin`, `plugin:<name>`, `mcp:<server>`. */
  source?: string;
  decision: PolicyDecision;
  subject: Subject;
  /** For sandboxed tools: how the call would run if allowed (in the sandbox widened to…, or outside it). */
  sandbox?: string;
}

/** What the owner sends: `allow_always` takes a scope (default: this exact call). */
export interface OwnerDecision {
  decision: ApprovalDecision;
  scope?: RuleScope;
  pattern?: string;
  message?: string;
}

/** A pending approval as the owner's UI needs it: everything to render without another request. */
export interface PendingApproval extends ApprovalRecord {
  /** Scopes an "always allow" can take for this call, with the pattern each would use. */
  scopes: { scope: RuleScope; pattern: string | null; label: string }[];
  /** For sandboxed tools: how the call would run if allowed, for the owner to read before deciding. */
  sandbox: string | null;
  /** Where the tool comes from (`builtin`, `plugin:<name>`…): the owner should know whose code asks. */
  source: string;
  /**
   * Files the call runs (a Makefile for `make`, package.json for `npm test`) that a client wrote recently, newest
   * first: the owner should know whose instructions "make" follows.
   */
  provenance: Provenance[];
}

interface Waiting {
  approval: PendingApproval;
  request: ApprovalRequest;
  /** The scopes as offered, unredacted: an "always allow" takes its pattern from here, the card shows them redacted. */
  scopes: PendingApproval['scopes'];
  resolve: (resolution: Resolution) => void;
  timer: NodeJS.Timeout;
}

/** An approval asked for, answered or expired, with everything a popup shows. */
export interface ApprovalEvent {
  phase: 'requested' | 'resolved' | 'expired';
  approval: PendingApproval;
}

/** Where approvals are announced (the gateway's event bus); named here so this layer needs nothing above it. */
export interface ApprovalAnnouncer {
  emit(event: 'approval', payload: ApprovalEvent): unknown;
}

export interface BrokerOptions {
  store: Store;
  events: ApprovalAnnouncer;
  rules: RuleBook;
  timeoutMs: number;
  /** Pending approvals one client may have at once; beyond it new asks are refused (a flood of asks). */
  maxPendingPerClient: number;
  /** Applied to the scopes a card offers (a prefix can hold a secret: `OPENAI_API_KEY=sk-… python`). */
  redactor?: Redactor;
}

/**
 * Turns "ask" into a question for the owner: the call waits here until the owner allows or denies it, or the
 * question expires. Only the owner's routes and IPC reach decide(); no client can answer its own call.
 */
export class ApprovalBroker {
  readonly #waiting = new Map<string, Waiting>();
  #timeoutMs: number;

  constructor(private readonly options: BrokerOptions) {
    this.#timeoutMs = options.timeoutMs;
  }

  /** How long a new question waits for the owner before it expires to deny. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Changes the wait for questions opened from now on; open ones keep the deadline they were shown with. */
  setTimeoutMs(ms: number): void {
    if (!(Number.isSafeInteger(ms) && ms > 0)) throw new RangeError(`approval timeout must be a positive whole number of ms, got ${ms}`);
    this.#timeoutMs = ms;
  }

  /** Opens a question; refuses with 429 when the client already has too many open. */
  open(request: ApprovalRequest): { approval: PendingApproval; settled: Promise<Resolution> } {
    const open = [...this.#waiting.values()].filter((w) => w.approval.client === request.client).length;
    if (open >= this.options.maxPendingPerClient) {
      throw new GatewayError(
        'TOO_MANY_APPROVALS',
        429,
        `${request.client} already has ${open} calls waiting for the owner's approval; wait for them to be answered before asking again.`,
        { pending: open, limit: this.options.maxPendingPerClient },
      );
    }
    const now = Date.now();
    const timeoutMs = this.#timeoutMs;
    const scopes = scopesFor(request);
    const redactor = this.options.redactor;
    const approval: PendingApproval = {
      id: `a_${randomUUID().slice(0, 12)}`,
      call_id: request.callId,
      tool: request.tool,
      client: request.client,
      arguments: request.arguments,
      risk: request.risk,
      rule: request.decision.rule,
      reason: request.decision.reason,
      status: 'pending',
      decision: null,
      message: null,
      granted_rule: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + timeoutMs).toISOString(),
      decided_at: null,
      decided_by: null,
      scopes: redactor
        ? scopes.map((s) => ({ ...s, pattern: s.pattern === null ? null : redactor.text(s.pattern), label: redactor.text(s.label) }))
        : scopes,
      sandbox: request.sandbox ?? null,
      source: request.source ?? 'builtin',
      provenance: redactSecrets(request.subject.provenance ?? []) as Provenance[],
    };
    this.options.store.approvals.save(approval);
    const settled = new Promise<Resolution>((resolve) => {
      const timer = setTimeout(() => this.#end(approval.id, 'expired', { outcome: 'expired' }), timeoutMs);
      this.#waiting.set(approval.id, { approval, request, scopes, resolve, timer });
    });
    this.#announce('requested', approval);
    return { approval, settled };
  }

  /** Pending approvals, oldest first; a client sees only its own. */
  pending(client?: string): PendingApproval[] {
    return [...this.#waiting.values()].map((w) => w.approval).filter((a) => client === undefined || a.client === client);
  }

  get(id: string): PendingApproval | undefined {
    return this.#waiting.get(id)?.approval;
  }

  /** The owner's answer. */
  decide(id: string, answer: OwnerDecision, by: string): ApprovalRecord {
    const waiting = this.#waiting.get(id);
    if (!waiting) throw refuse.notFound(`A pending approval "${id}"`);
    const { request, scopes } = waiting;
    if (answer.decision === 'deny') {
      return this.#end(id, 'denied', { outcome: 'denied', message: answer.message ?? null, rule: `approval:${id}` }, answer, by);
    }
    let granted: Rule | undefined;
    if (answer.decision === 'allow_always') {
      const scope = answer.scope ?? 'exact';
      const offered = scopes.find((s) => s.scope === scope);
      if (!offered) {
        throw refuse.badRequest(`"${scope}" is not a scope for this call; choose one of ${scopes.map((s) => s.scope).join(', ')}.`);
      }
      try {
        granted = this.options.rules.add(
          {
            effect: 'allow',
            tool: request.tool,
            scope,
            pattern: scope === 'exact' ? request.rawArguments : (answer.pattern ?? offered.pattern),
            note: `Always allowed from approval ${id}`,
          },
          by,
        );
      } catch (error) {
        // The owner's pattern does not make a rule (e.g. "git push; curl …" as a prefix): the question stays open.
        if (error instanceof GatewayError) throw error;
        throw refuse.badRequest(`Cannot always allow with that scope: ${(error as Error).message}.`);
      }
    }
    return this.#end(id, 'allowed', { outcome: 'allowed', rule: granted ? `rule:${granted.id}` : `approval:${id}` }, answer, by, granted);
  }

  /** The caller left: the question is withdrawn, nothing runs. */
  withdraw(id: string): void {
    if (this.#waiting.has(id)) this.#end(id, 'cancelled', { outcome: 'cancelled' });
  }

  /** The gateway is stopping: every open question is withdrawn and its call refused. */
  cancelAll(): void {
    for (const id of [...this.#waiting.keys()]) this.#end(id, 'cancelled', { outcome: 'cancelled' });
  }

  #end(
    id: string,
    status: 'allowed' | 'denied' | 'expired' | 'cancelled',
    resolution: Resolution,
    answer?: OwnerDecision,
    by?: string,
    granted?: Rule,
  ): ApprovalRecord {
    const waiting = this.#waiting.get(id)!;
    clearTimeout(waiting.timer);
    this.#waiting.delete(id);
    const ended: PendingApproval = {
      ...waiting.approval,
      status,
      decision: answer?.decision ?? null,
      message: answer?.message ?? null,
      granted_rule: granted?.id ?? null,
      decided_at: new Date().toISOString(),
      decided_by: by ?? null,
    };
    this.options.store.approvals.save(ended);
    waiting.resolve(resolution);
    this.#announce(status === 'expired' ? 'expired' : 'resolved', ended);
    return ended;
  }

  #announce(phase: 'requested' | 'resolved' | 'expired', approval: PendingApproval): void {
    try {
      this.options.events.emit('approval', { phase, approval });
    } catch (error) {
      console.error(`pincer: an approval listener failed: ${(error as Error).message}`);
    }
  }
}

/** The scopes an "always allow" can take for a call: always this exact call and the whole tool, plus what fits. */
function scopesFor(request: ApprovalRequest): PendingApproval['scopes'] {
  const scopes: PendingApproval['scopes'] = [{ scope: 'exact', pattern: null, label: 'this exact call' }];
  const { subject, tool } = request;
  if (tool === 'run_shell' && subject.command) {
    const words = subject.command.trim().split(/\s+/).slice(0, 2).join(' ');
    if (/^[A-Za-z0-9_./:=@+-]+( [A-Za-z0-9_./:=@+-]+)?$/.test(words)) {
      scopes.push({ scope: 'prefix', pattern: words, label: `commands starting with "${words}"` });
    }
  }
  const outside = subject.outside ?? [];
  if (outside.length > 0) {
    // A command that reads outside the roots: the grant names the folder it reads (run_shell's folder rules cover
    // such reads only when the command is otherwise read-only).
    const folder = commonFolder(outside.map((p) => p.folder));
    if (folder !== '/') scopes.push({ scope: 'folder', pattern: folder, label: `reading anything in ${folder}` });
  } else if (subject.path) {
    const folder = tool === 'run_shell' || tool === 'file_list' ? subject.path : dirname(subject.path);
    scopes.push({ scope: 'folder', pattern: folder, label: `anything in ${folder}` });
  }
  if (subject.host) scopes.push({ scope: 'host', pattern: subject.host, label: `anything on ${subject.host}` });
  scopes.push({ scope: 'tool', pattern: null, label: `every ${tool} call` });
  return scopes;
}

/** The deepest folder that holds all of these. */
function commonFolder(folders: readonly string[]): string {
  let common = folders[0] ?? '/';
  for (const folder of folders) {
    while (common !== '/' && folder !== common && !folder.startsWith(common.endsWith('/') ? common : `${common}/`)) common = dirname(common);
  }
  return common;
}

import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { GatewayError, refuse } from '../errors.js';
import type { Approval, ApprovalEvent, Provenance } from '../contract/approvals.js';
import type { PolicyDecision, Subject } from '../decision.js';
import type { Announcer } from '../events/bus.js';
import type { RuleBook } from '../policy/rules.js';
import { redactSecrets } from '../util/redact.js';
import type { ApprovalDecision, ApprovalKind, ApprovalRecord, Rule, RuleScope, Store } from '../store/index.js';
import { closeSchema, compileValidator, type ArgumentValidator } from '../tools/validator.js';
import type { ObjectSchema } from '../tools/types.js';
import type { Redactor } from '../util/redact.js';

/** How a wait for the owner ended. */
export type Resolution =
  | { outcome: 'allowed'; rule: string }
  | { outcome: 'denied'; message: string | null; rule: string }
  | { outcome: 'expired' }
  /** `why`: told to the caller when it is not the usual (the caller left, the gateway stopped). */
  | { outcome: 'cancelled'; why?: string };

/** How an imported server's question (elicitation) or request for the model (sampling) ended. */
export type QuestionResolution =
  | { outcome: 'accepted'; content: Record<string, unknown> }
  | { outcome: 'declined' }
  | { outcome: 'allowed' }
  | { outcome: 'denied'; message: string | null }
  | { outcome: 'expired' }
  | { outcome: 'cancelled' };

/** The decisions each kind of approval takes: one kind's answers never settle another's. */
export const DECISIONS_BY_KIND: Record<ApprovalKind, readonly ApprovalDecision[]> = {
  call: ['allow_once', 'allow_always', 'deny'],
  elicitation: ['accept', 'decline'],
  sampling: ['allow_once', 'deny'],
};

/** An imported MCP server asks the owner something while a client's call to it runs. */
export interface QuestionRequest {
  kind: 'elicitation' | 'sampling';
  server: string;
  /** The client whose call caused it (never guessed: the caller decides it only when it is certain). */
  client: string;
  /** That call, when it is known which one (a client may have several calls to the server running). */
  callId: string | null;
  /** The imported tool being called, or `mcp:<server>` when not one call. */
  tool: string;
  /** Elicitation: the server's question; sampling: a one-line summary of what it asks the model. */
  message: string;
  /** Elicitation: the flat schema the answer must match (checked as one by the caller). */
  requestedSchema?: ObjectSchema;
  /** Sampling: the prompt as the owner sees it (redacted here). */
  prompt?: unknown;
  reason: string;
}

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
  /** An elicitation's answer, with `accept`: checked against its requested schema. */
  content?: Record<string, unknown>;
}

/** A pending approval as the owner's UI needs it, everything to render without another request: the wire contract's. */
export type PendingApproval = Approval;

interface Waiting {
  approval: PendingApproval;
  /** Absent for an imported server's question: there is no call of a client's to build a rule from. */
  request?: ApprovalRequest;
  /** The scopes as offered, unredacted: an "always allow" takes its pattern from here, the card shows them redacted. */
  scopes: PendingApproval['scopes'];
  /** An elicitation's answer check, compiled once from its requested schema. */
  validate?: ArgumentValidator;
  resolve: (resolution: Resolution | QuestionResolution) => void;
  timer: NodeJS.Timeout;
}

/** An approval asked for, answered or expired, with everything a popup shows. */
export type { ApprovalEvent } from '../contract/approvals.js';

export interface BrokerOptions {
  store: Store;
  /** Where questions and their ends are announced (popups, the dashboard, the tray). */
  events: Announcer<'approval'>;
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
    this.#checkRoom(request.client);
    const now = Date.now();
    const timeoutMs = this.#timeoutMs;
    const scopes = scopesFor(request);
    const redactor = this.options.redactor;
    const approval: PendingApproval = {
      id: `a_${randomUUID().slice(0, 12)}`,
      kind: 'call',
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
      this.#waiting.set(approval.id, { approval, request, scopes, resolve: resolve as Waiting['resolve'], timer });
    });
    this.#announce('requested', approval);
    return { approval, settled };
  }

  /**
   * Opens an imported server's question to the owner (elicitation) or its request to use the model (sampling). It
   * waits like a call approval, counts towards the client's open approvals, and expires to `expired` (an
   * elicitation's cancel). Throws when the requested schema does not compile.
   */
  ask(question: QuestionRequest): { approval: PendingApproval; settled: Promise<QuestionResolution> } {
    this.#checkRoom(question.client);
    const validate = question.requestedSchema ? compileValidator(closeSchema(question.requestedSchema)) : undefined;
    const now = Date.now();
    const timeoutMs = this.#timeoutMs;
    const redactor = this.options.redactor;
    const approval: PendingApproval = {
      id: `a_${randomUUID().slice(0, 12)}`,
      kind: question.kind,
      call_id: question.callId ?? '',
      tool: question.tool,
      client: question.client,
      arguments: null,
      risk: 'sensitive',
      rule: `mcp:${question.kind}`,
      reason: question.reason,
      status: 'pending',
      decision: null,
      message: question.message,
      granted_rule: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + timeoutMs).toISOString(),
      decided_at: null,
      decided_by: null,
      server: question.server,
      ...(question.requestedSchema && { requested_schema: question.requestedSchema }),
      ...(question.prompt !== undefined && { prompt: redactor ? redactor.redact(question.prompt) : redactSecrets(question.prompt) }),
      scopes: [],
      sandbox: null,
      source: `mcp:${question.server}`,
      provenance: [],
    };
    this.options.store.approvals.save(approval);
    const settled = new Promise<QuestionResolution>((resolve) => {
      const timer = setTimeout(() => this.#end(approval.id, 'expired', { outcome: 'expired' }), timeoutMs);
      this.#waiting.set(approval.id, { approval, scopes: [], ...(validate && { validate }), resolve: resolve as Waiting['resolve'], timer });
    });
    this.#announce('requested', approval);
    return { approval, settled };
  }

  /** Records what came of an answered question afterwards (the model's reply to an allowed sampling request). */
  recordResponse(id: string, response: unknown): void {
    const ended = this.options.store.approvals.get(id);
    if (!ended) return;
    const redactor = this.options.redactor;
    this.options.store.approvals.save({ ...ended, response: redactor ? redactor.redact(response) : redactSecrets(response) });
  }

  /** Pending approvals, oldest first; a client sees only its own. */
  pending(client?: string): PendingApproval[] {
    return [...this.#waiting.values()].map((w) => w.approval).filter((a) => client === undefined || a.client === client);
  }

  get(id: string): PendingApproval | undefined {
    return this.#waiting.get(id)?.approval;
  }

  /** The owner's answer; each kind of approval takes only its own decisions (400 naming them otherwise). */
  decide(id: string, answer: OwnerDecision, by: string): ApprovalRecord {
    const waiting = this.#waiting.get(id);
    if (!waiting) throw refuse.notFound(`A pending approval "${id}"`);
    const kind = waiting.approval.kind;
    const valid = DECISIONS_BY_KIND[kind];
    if (!valid.includes(answer.decision)) {
      const what = kind === 'call' ? `a call (${waiting.approval.tool})` : kind === 'elicitation' ? `a question from the MCP server "${waiting.approval.server}"` : `a request of the MCP server "${waiting.approval.server}" to use the model`;
      throw refuse.badRequest(`"${answer.decision}" is not an answer to approval ${id}: it is ${what}; decide with one of ${valid.join(', ')}.`, { kind, decisions: valid });
    }
    if (answer.content !== undefined && answer.decision !== 'accept') {
      throw refuse.badRequest(`content goes with "accept" only (the answer to an elicitation).`, { kind, decisions: valid });
    }
    if (kind === 'elicitation') {
      if (answer.decision === 'decline') return this.#end(id, 'declined', { outcome: 'declined' }, answer, by);
      const content = structuredClone(answer.content ?? {});
      const checked = waiting.validate?.(content) ?? { ok: true as const };
      if (!checked.ok) {
        throw refuse.badRequest(`The answer does not fit the question's form: ${checked.problems.map((p) => p.message).join('; ')}.`, { errors: checked.problems });
      }
      const redactor = this.options.redactor;
      return this.#end(id, 'accepted', { outcome: 'accepted', content }, answer, by, undefined, redactor ? redactor.redact(content) : redactSecrets(content));
    }
    if (kind === 'sampling') {
      if (answer.decision === 'deny') return this.#end(id, 'denied', { outcome: 'denied', message: answer.message ?? null }, answer, by);
      return this.#end(id, 'allowed', { outcome: 'allowed' }, answer, by);
    }
    const { scopes } = waiting;
    const request = waiting.request!;
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

  /**
   * A client's token was revoked at `revokedAt` (epoch ms): the calls it asked about until then are withdrawn, so an
   * "allow" given later cannot run them. Answers how many.
   */
  cancelClient(client: string, revokedAt: number, why: string): number {
    const asked = [...this.#waiting].filter(([, w]) => w.request && w.approval.client === client && Date.parse(w.approval.created_at) <= revokedAt);
    for (const [id] of asked) this.#end(id, 'cancelled', { outcome: 'cancelled', why });
    return asked.length;
  }

  #checkRoom(client: string): void {
    const open = [...this.#waiting.values()].filter((w) => w.approval.client === client).length;
    if (open >= this.options.maxPendingPerClient) {
      throw new GatewayError(
        'TOO_MANY_APPROVALS',
        `${client} already has ${open} calls waiting for the owner's approval; wait for them to be answered before asking again.`,
        { pending: open, limit: this.options.maxPendingPerClient },
      );
    }
  }

  #end(
    id: string,
    status: 'allowed' | 'denied' | 'accepted' | 'declined' | 'expired' | 'cancelled',
    resolution: Resolution | QuestionResolution,
    answer?: OwnerDecision,
    by?: string,
    granted?: Rule,
    response?: unknown,
  ): ApprovalRecord {
    const waiting = this.#waiting.get(id)!;
    clearTimeout(waiting.timer);
    this.#waiting.delete(id);
    const ended: PendingApproval = {
      ...waiting.approval,
      status,
      decision: answer?.decision ?? null,
      // An elicitation's message is the server's question, kept; a call's is the owner's reason for a denial.
      message: waiting.approval.kind === 'elicitation' ? waiting.approval.message : (answer?.message ?? null),
      granted_rule: granted?.id ?? null,
      ...(response !== undefined && { response }),
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

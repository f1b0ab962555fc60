import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApprovalBroker, type ApprovalEvent, type ApprovalRequest, type BrokerOptions, type QuestionRequest } from '../../../server/approvals/broker.js';
import { ask, type Subject } from '../../../server/decision.js';
import { GatewayError } from '../../../server/errors.js';
import { EventBus } from '../../../server/events/bus.js';
import { RuleBook } from '../../../server/policy/rules.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { REDACTED, Redactor } from '../../../server/util/redact.js';
import { tempDir } from '../../helpers/gateway.js';
import { fake } from '../../helpers/secret-samples.js';

/**
 * The broker on a real SQLite store, rule book and event bus: a question opened, answered, expired or withdrawn,
 * and every answer that must not settle it.
 */

let dir: string;
let store: Store;
let bus: EventBus;
let rules: RuleBook;
let announced: ApprovalEvent[];
const brokers: ApprovalBroker[] = [];

beforeEach(() => {
  dir = tempDir('pincer-approvals-');
  store = openStore(join(dir, 'pincer.db'));
  bus = new EventBus();
  rules = new RuleBook(store);
  announced = [];
  bus.on('approval', (event) => announced.push(event));
});

afterEach(() => {
  // An open question holds a timer: withdraw them so nothing fires after the store is gone.
  for (const broker of brokers.splice(0)) broker.cancelAll();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function broker(options: Partial<BrokerOptions> = {}): ApprovalBroker {
  const made = new ApprovalBroker({ store, events: bus, rules, timeoutMs: 60_000, maxPendingPerClient: 5, ...options });
  brokers.push(made);
  return made;
}

let calls = 0;
/** A call that asks, as the executor hands it over; override what a test is about. */
function request(over: Partial<ApprovalRequest> & { subject?: Subject } = {}): ApprovalRequest {
  calls += 1;
  const rawArguments = over.rawArguments ?? { path: '/p/src/a.txt', content: 'x' };
  return {
    callId: `c_${calls}`,
    tool: 'file_write',
    client: 'cursor',
    arguments: rawArguments,
    rawArguments,
    risk: 'sensitive',
    decision: ask('risk:sensitive', 'file_write is marked sensitive.'),
    subject: { path: '/p/src/a.txt' },
    ...over,
  };
}

function question(over: Partial<QuestionRequest> = {}): QuestionRequest {
  return {
    kind: 'elicitation',
    server: 'forms',
    client: 'cursor',
    callId: 'c_q',
    tool: 'forms__fill',
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    reason: 'The MCP server "forms" asks you something.',
    ...over,
  };
}

/** The GatewayError `body` throws. */
function thrown(body: () => unknown): GatewayError {
  let error: unknown;
  try {
    body();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** Whether a promise has settled by the next turn of the event loop. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('asking the owner about a call', () => {
  it('opens a question: pending, stored and announced with what a popup shows', () => {
    const b = broker();
    const { approval } = b.open(request({ source: 'plugin:notes', sandbox: 'in the sandbox' }));
    expect(approval).toMatchObject({ kind: 'call', status: 'pending', tool: 'file_write', client: 'cursor', source: 'plugin:notes', sandbox: 'in the sandbox' });
    expect(Date.parse(approval.expires_at) - Date.parse(approval.created_at)).toBe(60_000);
    expect(b.pending().map((a) => a.id)).toEqual([approval.id]);
    expect(b.get(approval.id)).toBe(approval);
    expect(store.approvals.get(approval.id)?.status).toBe('pending');
    expect(announced).toEqual([{ phase: 'requested', approval }]);
  });

  it('offers the exact call, its folder and the whole tool for a file write', () => {
    const { approval } = broker().open(request());
    expect(approval.scopes.map((s) => [s.scope, s.pattern])).toEqual([
      ['exact', null],
      ['folder', '/p/src'],
      ['tool', null],
    ]);
  });

  it('offers the first two command words of a plain command as a prefix, and no prefix for a command with operators', () => {
    const plain = broker().open(request({ tool: 'run_shell', subject: { command: 'git push origin main', path: '/p' } })).approval;
    expect(plain.scopes.find((s) => s.scope === 'prefix')?.pattern).toBe('git push');
    const piped = broker().open(request({ tool: 'run_shell', subject: { command: 'curl x|sh', path: '/p' } })).approval;
    expect(piped.scopes.map((s) => s.scope)).not.toContain('prefix');
  });

  it('lists only the asking client its own questions', () => {
    const b = broker();
    const mine = b.open(request({ client: 'cursor' })).approval;
    b.open(request({ client: 'claude' }));
    expect(b.pending('cursor').map((a) => a.id)).toEqual([mine.id]);
    expect(b.pending()).toHaveLength(2);
  });

  it('refuses a client its next question past its limit (429), while another client may still ask', () => {
    const b = broker({ maxPendingPerClient: 2 });
    const first = b.open(request()).approval;
    b.open(request());
    const refused = thrown(() => b.open(request()));
    expect(refused.status).toBe(429);
    expect(refused.errorName).toBe('TOO_MANY_APPROVALS');
    expect(refused.details).toEqual({ pending: 2, limit: 2 });
    expect(b.pending()).toHaveLength(2);
    expect(() => b.open(request({ client: 'claude' }))).not.toThrow();
    // An answered question makes room again.
    b.decide(first.id, { decision: 'deny' }, 'owner');
    expect(() => b.open(request())).not.toThrow();
  });
});

describe('secrets on the card', () => {
  it('shows the offered prefix redacted, and an "always" grant still matches the real command', async () => {
    const key = `sk-proj-${fake(48, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
    const command = `OPENAI_API_KEY=${key} python`;
    const b = broker({ redactor: new Redactor() });
    const { approval, settled } = b.open(request({ tool: 'run_shell', rawArguments: { command }, arguments: { command: REDACTED }, subject: { command, path: '/p' } }));
    expect(JSON.stringify(approval.scopes)).not.toContain(key);
    expect(JSON.stringify(announced)).not.toContain(key);
    b.decide(approval.id, { decision: 'allow_always', scope: 'prefix' }, 'owner');
    await expect(settled).resolves.toMatchObject({ outcome: 'allowed' });
    const decided = await rules.apply('run_shell', { command }, { ...ask('shell:runs-code', 'Runs Python.'), subject: { command, path: '/p' } }, Date.now());
    expect(decided.decision).toBe('allow');
  });
});

describe("the owner's answer", () => {
  it('allow_once lets the waiting call run, records who decided, and announces it', async () => {
    const b = broker();
    const { approval, settled } = b.open(request());
    const ended = b.decide(approval.id, { decision: 'allow_once' }, 'owner');
    await expect(settled).resolves.toEqual({ outcome: 'allowed', rule: `approval:${approval.id}` });
    expect(ended).toMatchObject({ status: 'allowed', decision: 'allow_once', decided_by: 'owner', granted_rule: null });
    expect(store.approvals.get(approval.id)).toMatchObject({ status: 'allowed', decided_by: 'owner' });
    expect(b.pending()).toEqual([]);
    expect(announced.map((e) => [e.phase, e.approval.status])).toEqual([
      ['requested', 'pending'],
      ['resolved', 'allowed'],
    ]);
    expect(rules.list()).toEqual([]);
  });

  it("deny refuses the call with the owner's message", async () => {
    const b = broker();
    const { approval, settled } = b.open(request());
    b.decide(approval.id, { decision: 'deny', message: 'Not in src/.' }, 'owner');
    await expect(settled).resolves.toEqual({ outcome: 'denied', message: 'Not in src/.', rule: `approval:${approval.id}` });
    expect(store.approvals.get(approval.id)).toMatchObject({ status: 'denied', message: 'Not in src/.' });
  });

  it('allow_always makes a rule for this exact call from its real arguments, not the redacted ones shown', async () => {
    const b = broker();
    const raw = { path: '/p/src/a.txt', content: 'token=pk_live_secret' };
    const { approval, settled } = b.open(request({ rawArguments: raw, arguments: { path: '/p/src/a.txt', content: REDACTED } }));
    const ended = b.decide(approval.id, { decision: 'allow_always' }, 'owner');
    const rule = rules.list()[0]!;
    expect(ended.granted_rule).toBe(rule.id);
    await expect(settled).resolves.toEqual({ outcome: 'allowed', rule: `rule:${rule.id}` });
    expect(rule).toMatchObject({ effect: 'allow', tool: 'file_write', scope: 'exact', created_by: 'owner' });
    const asked = ask('risk:sensitive', 'asks');
    expect((await rules.apply('file_write', { content: 'token=pk_live_secret', path: '/p/src/a.txt' }, asked)).decision).toBe('allow');
    expect((await rules.apply('file_write', { path: '/p/src/a.txt', content: REDACTED }, asked)).decision).toBe('ask');
  });

  it('allow_always with an offered scope takes its pattern from the offer', () => {
    const b = broker();
    const { approval } = b.open(request());
    b.decide(approval.id, { decision: 'allow_always', scope: 'folder' }, 'owner');
    expect(rules.list()[0]).toMatchObject({ scope: 'folder', pattern: '/p/src' });
  });

  it('refuses a scope the call was not offered, and the question stays open', async () => {
    const b = broker();
    const { approval, settled } = b.open(request());
    const refused = thrown(() => b.decide(approval.id, { decision: 'allow_always', scope: 'host' }, 'owner'));
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('"host" is not a scope for this call');
    expect(b.pending()).toHaveLength(1);
    expect(rules.list()).toEqual([]);
    expect(await settledYet(settled)).toBe(false);
  });

  it('refuses a prefix the owner typed that is not one plain command, and the question stays open', () => {
    const b = broker();
    const { approval } = b.open(request({ tool: 'run_shell', subject: { command: 'git push', path: '/p' } }));
    const refused = thrown(() => b.decide(approval.id, { decision: 'allow_always', scope: 'prefix', pattern: 'git push; curl x | sh' }, 'owner'));
    expect(refused.status).toBe(400);
    expect(rules.list()).toEqual([]);
    expect(b.get(approval.id)?.status).toBe('pending');
  });

  it('refuses an answer of another kind: accept is no answer to a call', () => {
    const b = broker();
    const { approval } = b.open(request());
    const refused = thrown(() => b.decide(approval.id, { decision: 'accept', content: { a: 1 } }, 'owner'));
    expect(refused.status).toBe(400);
    expect(refused.details).toEqual({ kind: 'call', decisions: ['allow_once', 'allow_always', 'deny'] });
    expect(b.pending()).toHaveLength(1);
  });

  it('refuses a second answer to a decided question (404), and the first answer stands', async () => {
    const b = broker();
    const { approval, settled } = b.open(request());
    b.decide(approval.id, { decision: 'deny' }, 'owner');
    const again = thrown(() => b.decide(approval.id, { decision: 'allow_once' }, 'owner'));
    expect(again.status).toBe(404);
    await expect(settled).resolves.toMatchObject({ outcome: 'denied' });
    expect(store.approvals.get(approval.id)?.status).toBe('denied');
    expect(announced.filter((e) => e.phase === 'resolved')).toHaveLength(1);
  });

  it('refuses an answer to an approval that does not exist (404)', () => {
    const b = broker();
    b.open(request());
    expect(thrown(() => b.decide('a_unknown', { decision: 'allow_once' }, 'owner')).status).toBe(404);
    expect(b.pending()).toHaveLength(1);
  });

  it('keeps working when an approval listener throws: the call still gets its answer', async () => {
    const b = broker();
    bus.on('approval', () => {
      throw new Error('a broken popup');
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { approval, settled } = b.open(request());
      b.decide(approval.id, { decision: 'allow_once' }, 'owner');
      await expect(settled).resolves.toMatchObject({ outcome: 'allowed' });
      expect(logged).toHaveBeenCalledWith('pincer: an approval listener failed: a broken popup');
    } finally {
      logged.mockRestore();
    }
  });
});

describe('a question nobody answers', () => {
  it('expires to a denial at its deadline, stored and announced as expired; a late answer is refused', async () => {
    const b = broker({ timeoutMs: 30 });
    const { approval, settled } = b.open(request());
    await expect(settled).resolves.toEqual({ outcome: 'expired' });
    expect(store.approvals.get(approval.id)?.status).toBe('expired');
    expect(announced.at(-1)).toMatchObject({ phase: 'expired', approval: { id: approval.id, status: 'expired', decided_by: null } });
    expect(b.pending()).toEqual([]);
    expect(thrown(() => b.decide(approval.id, { decision: 'allow_once' }, 'owner')).status).toBe(404);
  });

  it('keeps the deadline a question was shown with when the timeout changes', async () => {
    const b = broker({ timeoutMs: 40 });
    const early = b.open(request());
    b.setTimeoutMs(60_000);
    const later = b.open(request());
    expect(b.timeoutMs).toBe(60_000);
    await expect(early.settled).resolves.toEqual({ outcome: 'expired' });
    expect(await settledYet(later.settled)).toBe(false);
    expect(Date.parse(later.approval.expires_at) - Date.parse(later.approval.created_at)).toBe(60_000);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses a timeout of %s ms', (ms) => {
    const b = broker();
    expect(() => b.setTimeoutMs(ms)).toThrow(RangeError);
    expect(b.timeoutMs).toBe(60_000);
  });
});

describe('withdrawing questions', () => {
  it('withdraws one question when its caller left: nothing runs, and it cannot be answered after', async () => {
    const b = broker();
    const { approval, settled } = b.open(request());
    b.withdraw(approval.id);
    await expect(settled).resolves.toEqual({ outcome: 'cancelled' });
    expect(store.approvals.get(approval.id)?.status).toBe('cancelled');
    expect(thrown(() => b.decide(approval.id, { decision: 'allow_once' }, 'owner')).status).toBe(404);
  });

  it('ignores a withdrawal of an unknown or already decided question', () => {
    const b = broker();
    const { approval } = b.open(request());
    b.decide(approval.id, { decision: 'deny' }, 'owner');
    const before = announced.length;
    b.withdraw(approval.id);
    b.withdraw('a_unknown');
    expect(announced).toHaveLength(before);
    expect(store.approvals.get(approval.id)?.status).toBe('denied');
  });

  it('withdraws every open question when the gateway stops', async () => {
    const b = broker();
    const one = b.open(request());
    const two = b.ask(question());
    b.cancelAll();
    await expect(one.settled).resolves.toEqual({ outcome: 'cancelled' });
    await expect(two.settled).resolves.toEqual({ outcome: 'cancelled' });
    expect(b.pending()).toEqual([]);
  });
});

describe("an imported server's questions", () => {
  it('accepts an elicitation answer that fits its form, and keeps it redacted in history', async () => {
    const b = broker({ redactor: new Redactor() });
    const { approval, settled } = b.ask(
      question({ requestedSchema: { type: 'object', properties: { name: { type: 'string' }, password: { type: 'string' } }, required: ['name'] } }),
    );
    expect(approval).toMatchObject({ kind: 'elicitation', server: 'forms', source: 'mcp:forms', scopes: [] });
    b.decide(approval.id, { decision: 'accept', content: { name: 'Ann', password: 'hunter2' } }, 'owner');
    await expect(settled).resolves.toEqual({ outcome: 'accepted', content: { name: 'Ann', password: 'hunter2' } });
    expect(store.approvals.get(approval.id)).toMatchObject({ status: 'accepted', message: 'Your name?', response: { name: 'Ann', password: REDACTED } });
  });

  it('refuses an answer that does not fit the form, and the question stays open', async () => {
    const b = broker();
    const { approval, settled } = b.ask(question());
    const refused = thrown(() => b.decide(approval.id, { decision: 'accept', content: { name: 7 } }, 'owner'));
    expect(refused.status).toBe(400);
    expect(refused.message).toContain("does not fit the question's form");
    expect(thrown(() => b.decide(approval.id, { decision: 'accept', content: { name: 'Ann', admin: true } }, 'owner')).status).toBe(400);
    expect(await settledYet(settled)).toBe(false);
    b.decide(approval.id, { decision: 'decline' }, 'owner');
    await expect(settled).resolves.toEqual({ outcome: 'declined' });
  });

  it('takes only allow_once or deny for a sampling request, never allow_always', async () => {
    const b = broker();
    const { approval, settled } = b.ask(question({ kind: 'sampling', requestedSchema: undefined, prompt: 'Summarise.' }));
    const refused = thrown(() => b.decide(approval.id, { decision: 'allow_always' }, 'owner'));
    expect(refused.details).toEqual({ kind: 'sampling', decisions: ['allow_once', 'deny'] });
    b.decide(approval.id, { decision: 'allow_once' }, 'owner');
    await expect(settled).resolves.toEqual({ outcome: 'allowed' });
    expect(rules.list()).toEqual([]);
  });

  it("records the model's reply to an allowed sampling request, redacted, and ignores a reply for an unknown id", () => {
    const b = broker();
    const { approval } = b.ask(question({ kind: 'sampling', requestedSchema: undefined, prompt: 'Summarise.' }));
    b.decide(approval.id, { decision: 'allow_once' }, 'owner');
    b.recordResponse(approval.id, { text: 'Done.', api_key: 'hunter2-secret' });
    expect(store.approvals.get(approval.id)).toMatchObject({ status: 'allowed', response: { text: 'Done.', api_key: REDACTED } });
    expect(() => b.recordResponse('a_unknown', { text: 'x' })).not.toThrow();
    expect(store.approvals.get('a_unknown')).toBeUndefined();
  });

  it('counts towards the same per-client limit as calls', () => {
    const b = broker({ maxPendingPerClient: 1 });
    b.open(request());
    expect(thrown(() => b.ask(question())).status).toBe(429);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../server/errors.js';
import { EventBus, type CallPhase } from '../../../server/events/bus.js';
import { CallerGone } from '../../../server/executor/cancellation.js';
import { Executor, type CallOutcome, type CallRequest, type ExecutorOptions } from '../../../server/executor/executor.js';
import { RiskPolicy, type Policy, type PolicyInput } from '../../../server/policy/policy.js';
import { openStore, type CallRecord, type Store } from '../../../server/store/index.js';
import { ToolRegistry } from '../../../server/tools/registry.js';
import type { AnyTool, ToolContext } from '../../../server/tools/types.js';
import { REDACTED } from '../../../server/util/redact.js';

let dir: string;
let store: Store;
let registry: ToolRegistry;
let events: EventBus;
let seen: { phase: CallPhase; call: CallRecord }[];
let executor: Executor;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pincer-executor-'));
  store = openStore(join(dir, 'pincer.db'));
  registry = new ToolRegistry();
  events = new EventBus();
  seen = [];
  events.on('call', (event) => seen.push(event));
  executor = makeExecutor();
});

afterEach(async () => {
  await executor.shutdown(0);
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function makeExecutor(options: Partial<ExecutorOptions> = {}): Executor {
  return new Executor({
    registry,
    store,
    events,
    policy: new RiskPolicy(),
    defaultTimeoutMs: 30_000,
    maxOutputBytes: 1024 * 1024,
    ...options,
  });
}

/** A safe tool that records every run; override what a test is about. */
function addTool(overrides: Partial<AnyTool> = {}): { runs: { args: Record<string, unknown>; ctx: ToolContext }[] } {
  const runs: { args: Record<string, unknown>; ctx: ToolContext }[] = [];
  const handler = overrides.handler;
  registry.register({
    name: 'echo',
    description: 'Echoes its input.',
    parameters: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer', default: 1 } } },
    category: 'test',
    risk: 'safe',
    annotations: { readOnlyHint: true, idempotentHint: true },
    ...overrides,
    handler: (args: Record<string, unknown>, ctx: ToolContext) => {
      runs.push({ args, ctx });
      return handler ? handler(args, ctx) : { echoed: args };
    },
  });
  return { runs };
}

function request(overrides: Partial<CallRequest> = {}): CallRequest {
  return { tool: 'echo', arguments: { text: 'hi' }, client: 'default', via: 'test', ...overrides };
}

function recorded(outcome: CallOutcome): CallRecord {
  const record = store.calls.get(outcome.callId);
  expect(record, `call ${outcome.callId} was not recorded`).toBeDefined();
  return record!;
}

function errorOf(outcome: CallOutcome) {
  expect(outcome.envelope.success).toBe(false);
  if (outcome.envelope.success) throw new Error('unreachable');
  return outcome.envelope.error;
}

/** A promise resolved from outside, to hold a handler until the test lets it go. */
function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A handler that runs until its signal aborts, then reports why. */
function untilAborted(started?: { resolve(value: ToolContext): void }) {
  return (_args: unknown, ctx: ToolContext) =>
    new Promise((_resolve, reject) => {
      started?.resolve(ctx);
      ctx.signal.addEventListener('abort', () => reject(new Error('handler saw the abort')), { once: true });
    });
}

describe('pipeline: refusals before running', () => {
  it("keeps a refused call's arguments in the history up to 64 KiB of JSON, and none beyond", async () => {
    addTool({ parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false } });
    const small = await executor.execute(request({ arguments: { text: 'hi', extra: 1 } }));
    expect(errorOf(small).name).toBe('INVALID_ARGUMENTS');
    expect(recorded(small).arguments).toEqual({ text: 'hi', extra: 1 });
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const big = await executor.execute(request({ arguments: wide }));
    expect(errorOf(big).name).toBe('INVALID_ARGUMENTS');
    expect(recorded(big)).toMatchObject({ status: 'failed', arguments: null, error: { name: 'INVALID_ARGUMENTS' } });
    const text = await executor.execute(request({ tool: 'no_such_tool', arguments: 'x'.repeat(100_000) }));
    expect(recorded(text)).toMatchObject({ tool: 'no_such_tool', arguments: null });
  });

  it('answers an unknown tool with TOOL_NOT_FOUND (404) and records it', async () => {
    const outcome = await executor.execute(request({ tool: 'no_such_tool' }));
    expect(outcome.httpStatus).toBe(404);
    expect(outcome.status).toBe('failed');
    expect(errorOf(outcome)).toMatchObject({ name: 'TOOL_NOT_FOUND', code: 600 });
    expect(recorded(outcome)).toMatchObject({ tool: 'no_such_tool', status: 'failed', http_status: 404, error: { name: 'TOOL_NOT_FOUND' } });
  });

  it('answers a disabled tool with TOOL_DISABLED (409) before looking at its arguments, and does not run it', async () => {
    const { runs } = addTool();
    registry.setEnabled('echo', false);
    const outcome = await executor.execute(request({ arguments: { text: 42 } }));
    expect(outcome.httpStatus).toBe(409);
    expect(errorOf(outcome).name).toBe('TOOL_DISABLED');
    expect(recorded(outcome).error?.name).toBe('TOOL_DISABLED');
    expect(runs).toHaveLength(0);
  });

  it('answers invalid arguments with INVALID_ARGUMENTS (400) listing the problems, and never calls the handler', async () => {
    const { runs } = addTool();
    const outcome = await executor.execute(request({ arguments: { text: 42, invented: true } }));
    expect(outcome.httpStatus).toBe(400);
    const error = errorOf(outcome);
    expect(error.name).toBe('INVALID_ARGUMENTS');
    expect(error.details.errors).toEqual(
      expect.arrayContaining([
        { path: '/text', message: '"text" must be string' },
        { path: '', message: 'unknown property "invented" in arguments' },
      ]),
    );
    expect(recorded(outcome)).toMatchObject({ status: 'failed', http_status: 400, arguments: { text: 42, invented: true } });
    expect(runs).toHaveLength(0);
  });

  it.each([
    ['a list', [1, 2]],
    ['a string', 'text'],
    ['null', null],
  ])('refuses arguments that are %s', async (_what, args) => {
    const { runs } = addTool();
    const outcome = await executor.execute(request({ arguments: args }));
    expect(errorOf(outcome).name).toBe('INVALID_ARGUMENTS');
    expect(runs).toHaveLength(0);
  });

  it('refuses arguments the caller could not decode, and keeps the undecodable text out of history', async () => {
    const { runs } = addTool();
    const outcome = await executor.execute(
      request({ arguments: '{"password": "hunter2"', argumentsError: 'Unexpected end of JSON input' }),
    );
    expect(errorOf(outcome)).toMatchObject({ name: 'INVALID_ARGUMENTS', details: { errors: [{ path: '', message: 'Unexpected end of JSON input' }] } });
    expect(recorded(outcome).arguments).toBeNull();
    expect(runs).toHaveLength(0);
  });

  it('runs a tool with no arguments given as an empty object, with defaults filled in', async () => {
    const { runs } = addTool();
    const outcome = await executor.execute(request({ arguments: undefined }));
    expect(outcome.status).toBe('succeeded');
    expect(runs[0]?.args).toEqual({ n: 1 });
  });

  it('checks arguments before asking the policy', async () => {
    const asked: PolicyInput[] = [];
    executor = makeExecutor({
      policy: {
        decide: (input) => {
          asked.push(input);
          return { decision: 'deny', rule: 'test:deny', reason: 'No.' };
        },
      },
    });
    addTool();
    const outcome = await executor.execute(request({ arguments: { text: 1 } }));
    expect(errorOf(outcome).name).toBe('INVALID_ARGUMENTS');
    expect(asked).toHaveLength(0);
  });

  it("a call whose client's token is revoked while the policy judges it is cancelled, not run; a call begun after still runs", async () => {
    const judged = deferred<void>();
    let asked = 0;
    executor = makeExecutor({
      policy: {
        decide: async () => {
          asked += 1;
          if (asked === 1) await judged.promise;
          return { decision: 'allow', rule: 'test:allow', reason: 'Fine.' };
        },
      },
    });
    const { runs } = addTool();
    const pending = executor.execute(request({ client: 'alice' }));
    await waitFor(() => (asked === 1 ? true : undefined));
    expect(executor.cancelClient('alice', Date.now(), 'The token of client "alice" was revoked, so what it started stops.')).toBe(0);
    judged.resolve();
    const outcome = await pending;
    expect(outcome.status).toBe('cancelled');
    expect(errorOf(outcome)).toMatchObject({ name: 'CALL_CANCELLED', message: expect.stringContaining('"alice" was revoked') });
    expect(recorded(outcome)).toMatchObject({ client: 'alice', status: 'cancelled' });
    expect(runs).toHaveLength(0);

    // Another client, and alice with a token issued since, are not affected.
    await new Promise((r) => setTimeout(r, 2));
    expect((await executor.execute(request({ client: 'bob' }))).status).toBe('succeeded');
    expect((await executor.execute(request({ client: 'alice' }))).status).toBe('succeeded');
    expect(runs).toHaveLength(2);
  });

  it('does not run a sensitive tool without approval: APPROVAL_REQUIRED, recorded as denied with the rule', async () => {
    const { runs } = addTool({ risk: 'sensitive', annotations: {} });
    const outcome = await executor.execute(request());
    expect(outcome.status).toBe('denied');
    expect(outcome.httpStatus).toBe(403);
    expect(errorOf(outcome)).toMatchObject({ name: 'APPROVAL_REQUIRED', details: { rule: 'risk:sensitive' } });
    expect(recorded(outcome)).toMatchObject({ status: 'denied', decision: 'ask', rule: 'risk:sensitive', error: { name: 'APPROVAL_REQUIRED' } });
    expect(runs).toHaveLength(0);
  });

  it('does not run a dangerous tool without approval either', async () => {
    const { runs } = addTool({ risk: 'dangerous', annotations: { destructiveHint: true } });
    const outcome = await executor.execute(request());
    expect(recorded(outcome)).toMatchObject({ status: 'denied', rule: 'risk:dangerous' });
    expect(runs).toHaveLength(0);
  });

  it('refuses what the policy denies with POLICY_DENIED, naming and recording the rule', async () => {
    const policy: Policy = { decide: () => ({ decision: 'deny', rule: 'rule:no-echo', reason: 'Echo is banned here.' }) };
    executor = makeExecutor({ policy });
    const { runs } = addTool();
    const outcome = await executor.execute(request());
    expect(outcome.status).toBe('denied');
    expect(outcome.httpStatus).toBe(403);
    const error = errorOf(outcome);
    expect(error).toMatchObject({ name: 'POLICY_DENIED', code: 605, details: { rule: 'rule:no-echo' } });
    expect(error.message).toContain('rule:no-echo');
    expect(error.message).toContain('Echo is banned here.');
    expect(recorded(outcome)).toMatchObject({ status: 'denied', decision: 'deny', rule: 'rule:no-echo', reason: 'Echo is banned here.' });
    expect(runs).toHaveLength(0);
  });

  it('gives the policy the validated arguments and the client', async () => {
    const asked: PolicyInput[] = [];
    executor = makeExecutor({
      policy: {
        decide: (input) => {
          asked.push(input);
          return new RiskPolicy().decide(input);
        },
      },
    });
    addTool();
    await executor.execute(request({ client: 'alice' }));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ client: 'alice', arguments: { text: 'hi', n: 1 } });
    expect(asked[0]?.tool.definition.name).toBe('echo');
  });
});

describe('pipeline: running', () => {
  it('runs an allowed call and records the decision allow and the rule risk:safe', async () => {
    const { runs } = addTool();
    const outcome = await executor.execute(request({ client: 'alice', via: 'http' }));
    expect(outcome.status).toBe('succeeded');
    expect(outcome.httpStatus).toBe(200);
    expect(outcome.envelope).toMatchObject({ success: true, result: { echoed: { text: 'hi', n: 1 } }, cached: false, call_id: outcome.callId });
    expect(recorded(outcome)).toMatchObject({
      tool: 'echo',
      client: 'alice',
      via: 'http',
      status: 'succeeded',
      http_status: 200,
      decision: 'allow',
      rule: 'risk:safe',
      arguments: { text: 'hi', n: 1 },
      result: { echoed: { text: 'hi', n: 1 } },
      error: null,
      cache_hit: false,
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]?.ctx).toMatchObject({ callId: outcome.callId, client: 'alice' });
    expect(runs[0]?.ctx.signal.aborted).toBe(false);
  });

  it('gives every call its own id', async () => {
    addTool();
    const a = await executor.execute(request());
    const b = await executor.execute(request());
    expect(a.callId).toMatch(/^c_/);
    expect(a.callId).not.toBe(b.callId);
  });

  it('emits started, then succeeded, for one call', async () => {
    addTool();
    const outcome = await executor.execute(request());
    expect(seen.map((e) => [e.phase, e.call.id])).toEqual([
      ['started', outcome.callId],
      ['succeeded', outcome.callId],
    ]);
    expect(seen[0]?.call.status).toBe('running');
    expect(seen[1]?.call).toEqual(recorded(outcome));
  });

  it('emits only the outcome for a refused call', async () => {
    const outcome = await executor.execute(request({ tool: 'missing' }));
    expect(seen.map((e) => [e.phase, e.call.id])).toEqual([['failed', outcome.callId]]);
  });

  it('emits denied for a denied call', async () => {
    addTool({ risk: 'sensitive', annotations: {} });
    await executor.execute(request());
    expect(seen.map((e) => e.phase)).toEqual(['denied']);
  });

  it('hands the handler the real arguments but records and announces them redacted', async () => {
    const { runs } = addTool({
      parameters: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } } },
      handler: () => ({ token: 'tok-from-result', ok: true }),
    });
    const outcome = await executor.execute(request({ arguments: { user: 'ann', password: 'hunter2' } }));
    expect(runs[0]?.args).toEqual({ user: 'ann', password: 'hunter2' });
    expect(outcome.envelope).toMatchObject({ result: { token: 'tok-from-result' } });
    const record = recorded(outcome);
    expect(record.arguments).toEqual({ user: 'ann', password: REDACTED });
    expect(record.result).toEqual({ token: REDACTED, ok: true });
    for (const event of seen) expect(JSON.stringify(event.call)).not.toMatch(/hunter2|tok-from-result/);
  });

  it('records a handler that returns nothing as a null result', async () => {
    addTool({ handler: () => undefined });
    const outcome = await executor.execute(request());
    expect(outcome.envelope).toMatchObject({ success: true, result: null });
    expect(recorded(outcome).result).toBeNull();
  });
});

describe('failures of a tool that ran', () => {
  it('answers a ToolError with its own name and details, HTTP 200', async () => {
    addTool({
      handler: () => {
        throw new ToolError('FILE_NOT_FOUND', 'No file at notes.txt; list the folder first.', { path: 'notes.txt' });
      },
    });
    const outcome = await executor.execute(request());
    expect(outcome.httpStatus).toBe(200);
    expect(outcome.status).toBe('failed');
    expect(errorOf(outcome)).toEqual({
      name: 'FILE_NOT_FOUND',
      code: 700,
      message: 'No file at notes.txt; list the folder first.',
      details: { path: 'notes.txt' },
    });
    expect(recorded(outcome)).toMatchObject({ status: 'failed', http_status: 200, error: { name: 'FILE_NOT_FOUND' } });
  });

  it('answers a plain Error as TOOL_EXECUTION_ERROR with its message and no stack', async () => {
    addTool({
      handler: async () => {
        throw new Error('boom');
      },
    });
    const outcome = await executor.execute(request());
    const error = errorOf(outcome);
    expect(error).toMatchObject({ name: 'TOOL_EXECUTION_ERROR', code: 603, message: '"echo" failed: boom', details: {} });
    expect(JSON.stringify(outcome.envelope)).not.toMatch(/\n\s+at /);
    expect(outcome.httpStatus).toBe(200);
  });

  it('answers a synchronous throw of a non-Error the same way', async () => {
    addTool({
      handler: () => {
        throw 'just a string';
      },
    });
    expect(errorOf(await executor.execute(request()))).toMatchObject({ name: 'TOOL_EXECUTION_ERROR', message: '"echo" failed: just a string' });
  });

  it('refuses a result over the output cap with OUTPUT_TOO_LARGE', async () => {
    executor = makeExecutor({ maxOutputBytes: 100 });
    addTool({ handler: () => 'x'.repeat(200) });
    const outcome = await executor.execute(request());
    expect(outcome.status).toBe('failed');
    expect(errorOf(outcome)).toMatchObject({ name: 'OUTPUT_TOO_LARGE', details: { bytes: 202, limit: 100 } });
    expect(recorded(outcome).result).toBeNull();
  });

  it('accepts a result exactly at the cap, counted in bytes of JSON', async () => {
    executor = makeExecutor({ maxOutputBytes: 100 });
    addTool({ handler: () => 'é'.repeat(49) }); // 98 bytes of UTF-8 plus two quotes
    expect((await executor.execute(request())).status).toBe('succeeded');
  });

  it("uses the tool's own cap over the gateway's", async () => {
    executor = makeExecutor({ maxOutputBytes: 1_000_000 });
    addTool({ maxOutputBytes: 10, handler: () => 'x'.repeat(20) });
    expect(errorOf(await executor.execute(request()))).toMatchObject({ name: 'OUTPUT_TOO_LARGE', details: { limit: 10 } });
  });
});

describe('cache', () => {
  it('runs a cached read-only idempotent tool once for two identical calls', async () => {
    const { runs } = addTool({ cache: { ttl_s: 60 } });
    const first = await executor.execute(request({ arguments: { text: 'a', n: 2 } }));
    const second = await executor.execute(request({ arguments: { n: 2, text: 'a' } }));
    expect(runs).toHaveLength(1);
    expect(first.envelope).toMatchObject({ success: true, cached: false });
    expect(second.envelope).toMatchObject({ success: true, cached: true, result: { echoed: { text: 'a', n: 2 } } });
    expect(recorded(first).cache_hit).toBe(false);
    expect(recorded(second)).toMatchObject({ cache_hit: true, status: 'succeeded', decision: 'allow' });
    expect(executor.cache.stats()).toMatchObject({ hits: 1, misses: 1, size: 1 });
  });

  it("keeps each client's answers apart: another client's identical call runs the tool (it learns nothing of the first)", async () => {
    const { runs } = addTool({ cache: { ttl_s: 60 } });
    await executor.execute(request({ client: 'alice', arguments: { text: 'acme layoffs' } }));
    const bob = await executor.execute(request({ client: 'bob', arguments: { text: 'acme layoffs' } }));
    expect(bob.envelope).toMatchObject({ success: true, cached: false });
    expect(runs).toHaveLength(2);
    expect((await executor.execute(request({ client: 'alice', arguments: { text: 'acme layoffs' } }))).envelope).toMatchObject({ cached: true });
    // The owner's clearing of a tool still drops every client's entries.
    expect(executor.cache.clear('echo')).toBe(2);
  });

  it('treats an omitted argument and its default as the same call', async () => {
    const { runs } = addTool({ cache: { ttl_s: 60 } });
    await executor.execute(request({ arguments: { text: 'a' } }));
    await executor.execute(request({ arguments: { text: 'a', n: 1 } }));
    expect(runs).toHaveLength(1);
  });

  it('runs again for different arguments', async () => {
    const { runs } = addTool({ cache: { ttl_s: 60 } });
    await executor.execute(request({ arguments: { text: 'a' } }));
    await executor.execute(request({ arguments: { text: 'b' } }));
    expect(runs).toHaveLength(2);
  });

  it('runs a tool without a cache every time', async () => {
    const { runs } = addTool();
    for (let i = 0; i < 3; i++) expect((await executor.execute(request())).envelope).toMatchObject({ cached: false });
    expect(runs).toHaveLength(3);
  });

  it('does not cache a failure', async () => {
    let calls = 0;
    const { runs } = addTool({
      cache: { ttl_s: 60 },
      handler: () => {
        calls += 1;
        if (calls === 1) throw new ToolError('REQUEST_FAILED', 'upstream 500');
        return 'ok';
      },
    });
    expect((await executor.execute(request())).status).toBe('failed');
    expect((await executor.execute(request())).envelope).toMatchObject({ success: true, cached: false, result: 'ok' });
    expect(runs).toHaveLength(2);
  });

  it('still checks policy before answering from the cache', async () => {
    const { runs } = addTool({ cache: { ttl_s: 60 } });
    await executor.execute(request());
    executor = makeExecutor({ policy: { decide: () => ({ decision: 'deny', rule: 'r', reason: 'now denied' }) }, cache: executor.cache });
    const outcome = await executor.execute(request());
    expect(errorOf(outcome).name).toBe('POLICY_DENIED');
    expect(runs).toHaveLength(1);
  });

  it('hands out a cached result that the previous caller cannot have changed', async () => {
    addTool({ cache: { ttl_s: 60 }, handler: () => ({ items: [1, 2] }) });
    const first = await executor.execute(request());
    if (first.envelope.success) (first.envelope.result as { items: number[] }).items.push(3);
    const second = await executor.execute(request());
    expect(second.envelope).toMatchObject({ cached: true, result: { items: [1, 2] } });
  });
});

describe('time limits and cancellation', () => {
  it('aborts the handler signal when the tool timeout passes and records TOOL_TIMEOUT', async () => {
    const started = deferred<ToolContext>();
    addTool({ timeoutMs: 20, handler: untilAborted(started) });
    const outcome = await executor.execute(request());
    const ctx = await started.promise;
    expect(ctx.signal.aborted).toBe(true);
    expect(outcome.status).toBe('failed');
    expect(outcome.httpStatus).toBe(200);
    expect(errorOf(outcome)).toMatchObject({ name: 'TOOL_TIMEOUT', code: 604, details: { timeout_ms: 20 } });
    expect(recorded(outcome)).toMatchObject({ status: 'failed', error: { name: 'TOOL_TIMEOUT' } });
  });

  it('uses the gateway default timeout when the tool sets none', async () => {
    executor = makeExecutor({ defaultTimeoutMs: 15 });
    addTool({ handler: untilAborted() });
    expect(errorOf(await executor.execute(request()))).toMatchObject({ name: 'TOOL_TIMEOUT', details: { timeout_ms: 15 } });
  });

  it('stops a handler that ignores its signal at the timeout all the same', async () => {
    addTool({ timeoutMs: 15, handler: () => new Promise(() => {}) });
    expect(errorOf(await executor.execute(request())).name).toBe('TOOL_TIMEOUT');
    expect(executor.inFlightCount).toBe(0);
  });

  it('cancels the call when the caller goes away and records it as cancelled', async () => {
    const started = deferred<ToolContext>();
    addTool({ handler: untilAborted(started) });
    const caller = new AbortController();
    const pending = executor.execute(request({ signal: caller.signal }));
    const ctx = await started.promise;
    caller.abort();
    const outcome = await pending;
    expect(ctx.signal.aborted).toBe(true);
    expect(outcome.status).toBe('cancelled');
    expect(outcome.httpStatus).toBe(503);
    expect(errorOf(outcome)).toMatchObject({ name: 'CALL_CANCELLED', code: 610 });
    expect(recorded(outcome)).toMatchObject({ status: 'cancelled', error: { name: 'CALL_CANCELLED' } });
    expect(seen.map((e) => e.phase)).toEqual(['started', 'cancelled']);
  });

  it('takes a CallerGone as the caller signal: firing it cancels the call', async () => {
    const started = deferred<ToolContext>();
    addTool({ handler: untilAborted(started) });
    const caller = new CallerGone();
    const pending = executor.execute(request({ signal: caller }));
    const ctx = await started.promise;
    caller.fire();
    const outcome = await pending;
    expect(ctx.signal.aborted).toBe(true);
    expect(outcome.status).toBe('cancelled');
    expect(recorded(outcome)).toMatchObject({ status: 'cancelled', error: { name: 'CALL_CANCELLED' } });
  });

  it('hands a tool that first looks at its signal after the timeout one that is already aborted', async () => {
    let late: AbortSignal | undefined;
    const release = deferred();
    addTool({
      timeoutMs: 15,
      handler: async (_args, ctx) => {
        await release.promise;
        late = ctx.signal;
        return { done: true };
      },
    });
    const outcome = await executor.execute(request());
    expect(errorOf(outcome).name).toBe('TOOL_TIMEOUT');
    release.resolve();
    await waitFor(() => late);
    expect(late!.aborted).toBe(true);
  });

  it('records a call whose caller had already gone as cancelled', async () => {
    addTool();
    const outcome = await executor.execute(request({ signal: AbortSignal.abort() }));
    expect(outcome.status).toBe('cancelled');
    expect(recorded(outcome).status).toBe('cancelled');
  });

  it('never starts the handler when the caller had already gone', async () => {
    const { runs } = addTool();
    await executor.execute(request({ signal: AbortSignal.abort() }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toHaveLength(0);
  });

  it('shows a running call through inFlight, redacted, and forgets it once done', async () => {
    const started = deferred<ToolContext>();
    const release = deferred();
    addTool({
      parameters: { type: 'object', properties: { api_key: { type: 'string' } } },
      handler: async (_args, ctx) => {
        started.resolve(ctx);
        await release.promise;
        return 'done';
      },
    });
    const pending = executor.execute(request({ arguments: { api_key: 'sk-live-123' } }));
    const ctx = await started.promise;
    expect(executor.inFlightCount).toBe(1);
    expect(executor.inFlight(ctx.callId)).toMatchObject({ id: ctx.callId, status: 'running', arguments: { api_key: REDACTED } });
    expect(store.calls.get(ctx.callId)).toBeUndefined();
    release.resolve();
    const outcome = await pending;
    expect(outcome.callId).toBe(ctx.callId);
    expect(executor.inFlight(ctx.callId)).toBeUndefined();
    expect(executor.inFlightCount).toBe(0);
    expect(recorded(outcome).status).toBe('succeeded');
  });

  it('answers undefined from inFlight for an unknown id', () => {
    expect(executor.inFlight('c_unknown')).toBeUndefined();
  });
});

describe('shutdown', () => {
  it('lets a short call finish, cancels a long one, records both, then refuses new calls', async () => {
    const shortStarted = deferred<ToolContext>();
    const shortRelease = deferred();
    const longStarted = deferred<ToolContext>();
    registry.register({
      name: 'short',
      description: 'Finishes when released.',
      parameters: { type: 'object' },
      category: 'test',
      risk: 'safe',
      annotations: {},
      handler: async (_args: unknown, ctx: ToolContext) => {
        shortStarted.resolve(ctx);
        await shortRelease.promise;
        return 'short done';
      },
    });
    registry.register({
      name: 'long',
      description: 'Runs until aborted.',
      parameters: { type: 'object' },
      category: 'test',
      risk: 'safe',
      annotations: {},
      handler: untilAborted(longStarted),
    });
    const shortCall = executor.execute(request({ tool: 'short', arguments: {} }));
    const longCall = executor.execute(request({ tool: 'long', arguments: {} }));
    const [shortCtx, longCtx] = await Promise.all([shortStarted.promise, longStarted.promise]);
    expect(executor.inFlightCount).toBe(2);

    const stopped = executor.shutdown(50);
    // Released before the grace timer can fire: the short call finishes on microtasks alone.
    shortRelease.resolve();
    await stopped;

    // Both are on disk by the time shutdown resolves.
    expect(store.calls.get(shortCtx.callId)).toMatchObject({ status: 'succeeded', result: 'short done' });
    expect(store.calls.get(longCtx.callId)).toMatchObject({ status: 'cancelled', error: { name: 'CALL_CANCELLED' } });
    expect(longCtx.signal.aborted).toBe(true);
    expect(executor.inFlightCount).toBe(0);

    const [shortOutcome, longOutcome] = await Promise.all([shortCall, longCall]);
    expect(shortOutcome.status).toBe('succeeded');
    expect(longOutcome).toMatchObject({ status: 'cancelled', httpStatus: 503 });

    const late = await executor.execute(request({ tool: 'short', arguments: {} }));
    expect(late.httpStatus).toBe(503);
    expect(errorOf(late).name).toBe('CALL_CANCELLED');
    expect(recorded(late).status).toBe('failed');
  });

  it('resolves at once when nothing is running, and refuses calls afterwards', async () => {
    const { runs } = addTool();
    await executor.shutdown(60_000);
    const outcome = await executor.execute(request());
    expect(errorOf(outcome).name).toBe('CALL_CANCELLED');
    expect(runs).toHaveLength(0);
  });

  it('waits for every running call to finish when they all finish within the grace period', async () => {
    const release = deferred();
    addTool({
      handler: async () => {
        await release.promise;
        return 'ok';
      },
    });
    const calls = [executor.execute(request()), executor.execute(request())];
    await Promise.resolve();
    const stopped = executor.shutdown(60_000);
    release.resolve();
    await stopped;
    expect((await Promise.all(calls)).map((o) => o.status)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('history of long calls', () => {
  it('writes a call that is still running after a moment to history as running, then records its outcome', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    addTool({ handler: async () => (await gate, { done: true }) });
    const pending = executor.execute(request());
    const running = await waitFor(() => store.calls.list({ limit: 5 }).calls.find((c) => c.status === 'running'));
    expect(running).toMatchObject({ tool: 'echo', status: 'running', finished_at: null });
    release();
    const outcome = await pending;
    expect(recorded(outcome)).toMatchObject({ id: running.id, status: 'succeeded' });
    expect(store.calls.count()).toBe(1);
  });

  it('does not write a fast call twice', async () => {
    addTool();
    await executor.execute(request());
    expect(store.calls.count()).toBe(1);
  });
});

describe('event listeners', () => {
  it('a listener that throws breaks neither the call nor its record', async () => {
    addTool();
    events.on('call', () => {
      throw new Error('listener bug');
    });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const outcome = await executor.execute(request());
      expect(outcome.envelope.success).toBe(true);
      expect(recorded(outcome).status).toBe('succeeded');
      expect(executor.inFlightCount).toBe(0);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      console.error = original;
    }
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Every route and status code of docs/http-api.md, through real HTTP against a real gateway on 127.0.0.1.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineTool, ToolError, VERSION, type AnyTool } from '../../../server/index.js';
import { EventStream } from '../../helpers/events.js';
import { readJson as read, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

// ---------------------------------------------------------------------------------------------------------------
// Test tools

const QUIET = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves when `n` calls are inside at once; a call that waits 15 s without company fails instead of hanging. */
function makeBarrier(needed: number) {
  const open = deferred();
  let inside = 0;
  let maxInside = 0;
  return {
    get maxInside() {
      return maxInside;
    },
    async arrive(): Promise<number> {
      inside++;
      maxInside = Math.max(maxInside, inside);
      if (inside >= needed) open.resolve();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          open.promise,
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`only ${inside} of ${needed} calls were ever inside at once`)), 15_000);
          }),
        ]);
        return maxInside;
      } finally {
        clearTimeout(timer);
        inside--;
      }
    },
  };
}
let barrier = makeBarrier(3);
const barrierTool = defineTool<{ label: string }, { label: string; together: number }>({
  name: 'barrier',
  description: 'Test tool: waits until three calls are running at the same time.',
  parameters: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  timeoutMs: 30_000,
  handler: async ({ label }) => ({ label, together: await barrier.arrive() }),
});

const echoTool = defineTool<Record<string, unknown>, Record<string, unknown>>({
  name: 'echo_defaults',
  description: 'Test tool: returns its arguments after schema defaults were applied.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      count: { type: 'integer', minimum: 1, default: 3 },
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
    },
  },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  handler: (args) => ({ ...args }),
});

const seenSecrets: Record<string, unknown>[] = [];
const secretTool = defineTool<{ user: string; api_key?: string; password?: string; options?: { token?: string } }, unknown>({
  name: 'sign_in',
  description: 'Test tool: takes credentials and reports what it received.',
  parameters: {
    type: 'object',
    properties: {
      user: { type: 'string' },
      api_key: { type: 'string', minLength: 4 },
      password: { type: 'string' },
      options: { type: 'object', properties: { token: { type: 'string' }, region: { type: 'string' } } },
    },
    required: ['user'],
  },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  handler: (args) => {
    seenSecrets.push(structuredClone(args));
    return { user: args.user, key_length: args.api_key?.length ?? 0, password_length: args.password?.length ?? 0 };
  },
});

const sleeper = { signal: undefined as AbortSignal | undefined, abortSeen: false };
const sleeperTool = defineTool<Record<string, never>, string>({
  name: 'sleeper',
  description: 'Test tool: waits for its abort signal; has a 200 ms time limit.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  timeoutMs: 200,
  handler: (_args, { signal }) => {
    sleeper.signal = signal;
    return new Promise<string>((resolve) => {
      signal.addEventListener('abort', () => {
        sleeper.abortSeen = true;
        resolve('woke up too late');
      }, { once: true });
    });
  },
});

const stubbornTool = defineTool<Record<string, never>, never>({
  name: 'stubborn',
  description: 'Test tool: never finishes and ignores its signal; has a 200 ms time limit.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  timeoutMs: 200,
  handler: () => new Promise<never>(() => {}),
});

/** Waits on a gate the test opens, or on its signal; tells the test its call id when it starts. */
const gate = {
  entered: deferred<{ callId: string; signal: AbortSignal }>(),
  release: deferred(),
  aborted: deferred<unknown>(),
  reset() {
    this.entered = deferred();
    this.release = deferred();
    this.aborted = deferred();
  },
};
const gateTool = defineTool<Record<string, never>, { released: true }>({
  name: 'gate',
  description: 'Test tool: waits until the test opens the gate.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  timeoutMs: 60_000,
  handler: async (_args, { signal, callId }) => {
    signal.addEventListener('abort', () => gate.aborted.resolve(signal.reason), { once: true });
    gate.entered.resolve({ callId, signal });
    await gate.release.promise;
    return { released: true };
  },
});

const hugeTool = defineTool<Record<string, never>, string>({
  name: 'huge',
  description: 'Test tool: returns a 2 MiB string.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  handler: () => 'x'.repeat(2 * 2 ** 20),
});

const crashTool = defineTool<Record<string, never>, never>({
  name: 'crash',
  description: 'Test tool: throws a plain Error.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  handler: () => {
    throw new Error('the flux capacitor is out of flux');
  },
});

const missingFileTool = defineTool<{ path: string }, never>({
  name: 'missing_file',
  description: 'Test tool: fails the way a file tool does when the file is missing.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  handler: ({ path }) => {
    throw new ToolError('FILE_NOT_FOUND', `There is no file at ${path}.`, { path });
  },
});

let sensitiveRuns = 0;
const sensitiveTool = defineTool<Record<string, never>, string>({
  name: 'sensitive_thing',
  description: 'Test tool: marked sensitive, so the policy asks for approval.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'sensitive',
  annotations: { ...QUIET, destructiveHint: true },
  handler: () => {
    sensitiveRuns++;
    return 'ran';
  },
});

const spareTool = defineTool<Record<string, never>, string>({
  name: 'spare',
  description: 'Test tool: toggled on and off by the tests.',
  parameters: { type: 'object', properties: {} },
  category: 'test',
  risk: 'safe',
  annotations: QUIET,
  handler: () => 'spare ran',
});

let lookups = 0;
const cachedTool = defineTool<{ key: string }, { key: string; lookup: number }>({
  name: 'cached_lookup',
  description: 'Test tool: a read-only, idempotent lookup with a 60 s result cache.',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  category: 'test',
  risk: 'safe',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cache: { ttl_s: 60 },
  handler: ({ key }) => ({ key, lookup: ++lookups }),
});

const EXTRA_TOOLS = [
  barrierTool,
  echoTool,
  secretTool,
  sleeperTool,
  stubbornTool,
  gateTool,
  hugeTool,
  crashTool,
  missingFileTool,
  sensitiveTool,
  spareTool,
  cachedTool,
] as AnyTool[];

// ---------------------------------------------------------------------------------------------------------------
// Helpers


async function expectRefusal(res: Response, status: number, name: string, code?: number): Promise<any> {
  const body = await read(res);
  expect({ status: res.status, name: body?.error?.name }).toEqual({ status, name });
  expect(body.success).toBe(false);
  expect(typeof body.error.message).toBe('string');
  if (code !== undefined) expect(body.error.code).toBe(code);
  return body;
}

const post = (tg: TestGateway, path: string, json: unknown, headers: Record<string, string> = {}) =>
  tg.api(path, { method: 'POST', json, headers });

async function owner(tg: TestGateway, name: string, enabled: boolean): Promise<Response> {
  return tg.api(`/tools/${name}`, { method: 'PATCH', json: { enabled }, headers: await tg.ownerHeaders() });
}

/** Polls until `check` passes (for state that settles right after an answer, such as a cancelled call's record). */
async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function toolNames(list: { name?: string; function?: { name: string } }[]): string[] {
  return list.map((t) => t.name ?? t.function!.name);
}

// ---------------------------------------------------------------------------------------------------------------

let tg: TestGateway;
/** Every registered tool: the built-ins (a list that grows) and this file's extras. */
const registeredCount = () => tg.gateway.registry.list().length;
beforeAll(async () => {
  // Questions for the owner expire at once here: no one answers them in these tests.
  tg = await startGateway({ approvalTimeoutS: 0.25 }, { extraTools: EXTRA_TOOLS });
});
afterAll(async () => {
  await tg?.close();
});

describe('GET /health', () => {
  it('answers {status:"ok", version, sandbox} without a token', async () => {
    const res = await fetch(`${tg.url}/health`);
    expect(res.status).toBe(200);
    expect(await read(res)).toEqual({
      status: 'ok',
      version: VERSION,
      sandbox: { kind: expect.stringMatching(/^(bubblewrap|sandbox-exec|none)$/), detail: expect.any(String) },
    });
  });
});

describe('tool listings', () => {
  it('GET /tools lists every tool with its full summary and a count', async () => {
    const res = await tg.api('/tools');
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(Object.keys(body).sort()).toEqual(['count', 'paused', 'tools']);
    expect(body.count).toBe(body.tools.length);
    expect(body.count).toBe(registeredCount());
    expect(toolNames(body.tools)).toEqual(expect.arrayContaining(['calculate', 'json_parse', 'text_process', 'get_time', 'spare']));
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual(['annotations', 'category', 'description', 'enabled', 'name', 'parameters', 'risk', 'source']);
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(typeof tool.description).toBe('string');
      expect(tool.parameters.type).toBe('object');
      expect(['safe', 'sensitive', 'dangerous']).toContain(tool.risk);
      expect(tool.source).toBe('builtin');
      expect(tool.enabled).toBe(true);
      expect(typeof tool.annotations).toBe('object');
    }
    const calculate = body.tools.find((t: { name: string }) => t.name === 'calculate');
    expect(calculate).toMatchObject({
      category: 'math',
      risk: 'safe',
      parameters: { type: 'object', required: ['expression'], additionalProperties: false },
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    });
  });

  it('publishes schemas closed to unknown properties', async () => {
    const echo = await read(await tg.api('/tools/echo_defaults'));
    expect(echo.parameters.additionalProperties).toBe(false);
  });

  it('GET /tools/openai lists enabled tools as {type:"function", function:{name, description, parameters}}', async () => {
    const body = await read(await tg.api('/tools/openai'));
    expect(Object.keys(body)).toEqual(['tools']);
    expect(body.tools).toHaveLength(registeredCount());
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual(['function', 'type']);
      expect(tool.type).toBe('function');
      expect(Object.keys(tool.function).sort()).toEqual(['description', 'name', 'parameters']);
      expect(tool.function.parameters.type).toBe('object');
    }
    const listed = await read(await tg.api('/tools/calculate'));
    const calculate = body.tools.find((t: { function: { name: string } }) => t.function.name === 'calculate');
    expect(calculate.function).toEqual({ name: 'calculate', description: listed.description, parameters: listed.parameters });
  });

  it('GET /tools/anthropic lists enabled tools as {name, description, input_schema}', async () => {
    const body = await read(await tg.api('/tools/anthropic'));
    expect(body.tools).toHaveLength(registeredCount());
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(tool.input_schema.type).toBe('object');
    }
  });

  it('GET /tools/{name} answers one tool, the same summary as in the list', async () => {
    const list = await read(await tg.api('/tools'));
    const res = await tg.api('/tools/get_time');
    expect(res.status).toBe(200);
    expect(await read(res)).toEqual(list.tools.find((t: { name: string }) => t.name === 'get_time'));
  });

  it('GET /tools/{name} answers 404 TOOL_NOT_FOUND (code 600) for an unknown tool', async () => {
    const body = await expectRefusal(await tg.api('/tools/no_such_tool'), 404, 'TOOL_NOT_FOUND', 600);
    expect(body.error.message).toContain('no_such_tool');
  });

  it('GET /openapi.json has one literal path and operationId per enabled tool', async () => {
    const doc = await read(await tg.api('/openapi.json'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0].url).toBe(tg.url);
    const ops = Object.entries(doc.paths as Record<string, { post: { operationId: string } }>);
    expect(ops).toHaveLength(registeredCount());
    for (const [path, item] of ops) expect(path).toBe(`/tools/${item.post.operationId}/execute`);
  });
});

describe('PATCH /tools/{name}', () => {
  afterEach(() => {
    tg.gateway.registry.setEnabled('spare', true);
  });

  it('lets the owner turn a tool off: it leaves every listing at once and calling it answers 409 TOOL_DISABLED', async () => {
    const off = await owner(tg, 'spare', false);
    expect(off.status).toBe(200);
    expect(await read(off)).toMatchObject({ name: 'spare', enabled: false });

    expect((await read(await tg.api('/tools/spare'))).enabled).toBe(false);
    const all = await read(await tg.api('/tools'));
    expect(all.count).toBe(registeredCount()); // still listed for the owner's UI, marked off
    expect(all.tools.find((t: { name: string }) => t.name === 'spare').enabled).toBe(false);
    expect(toolNames((await read(await tg.api('/tools/openai'))).tools)).not.toContain('spare');
    expect(toolNames((await read(await tg.api('/tools/anthropic'))).tools)).not.toContain('spare');
    expect(Object.keys((await read(await tg.api('/openapi.json'))).paths)).not.toContain('/tools/spare/execute');

    const refused = await expectRefusal(await post(tg, '/tools/spare/execute', {}), 409, 'TOOL_DISABLED', 601);
    expect(refused.call_id).toMatch(/^c_/);
    await expectRefusal(await post(tg, '/execute', { name: 'spare', arguments: {} }), 409, 'TOOL_DISABLED');
    const batch = await read(await post(tg, '/tool_calls', { tool_calls: [{ id: 't1', type: 'function', function: { name: 'spare', arguments: '{}' } }] }));
    expect(JSON.parse(batch.messages[0].content).error.name).toBe('TOOL_DISABLED');

    const on = await owner(tg, 'spare', true);
    expect((await read(on)).enabled).toBe(true);
    expect(toolNames((await read(await tg.api('/tools/openai'))).tools)).toContain('spare');
    const ran = await post(tg, '/tools/spare/execute', {});
    expect(ran.status).toBe(200);
    expect((await read(ran)).result).toBe('spare ran');
  });

  it('is idempotent: turning off a tool that is already off answers 200', async () => {
    expect((await owner(tg, 'spare', false)).status).toBe(200);
    const again = await owner(tg, 'spare', false);
    expect(again.status).toBe(200);
    expect((await read(again)).enabled).toBe(false);
  });

  it.each([
    ['an empty object', {}],
    ['a string for enabled', { enabled: 'false' }],
    ['a number for enabled', { enabled: 0 }],
    ['null for enabled', { enabled: null }],
    ['an extra property', { enabled: false, risk: 'safe' }],
    ['an array', [{ enabled: false }]],
    ['a bare boolean', false],
    ['a bare string', 'off'],
  ])('refuses %s with 400 INVALID_ARGUMENTS and changes nothing', async (_what, json) => {
    const res = await tg.api('/tools/spare', { method: 'PATCH', json, headers: await tg.ownerHeaders() });
    await expectRefusal(res, 400, 'INVALID_ARGUMENTS');
    expect(tg.gateway.registry.isEnabled('spare')).toBe(true);
  });

  it('refuses a PATCH with no body with 400', async () => {
    const res = await tg.api('/tools/spare', { method: 'PATCH', headers: await tg.ownerHeaders() });
    await expectRefusal(res, 400, 'INVALID_ARGUMENTS');
    expect(tg.gateway.registry.isEnabled('spare')).toBe(true);
  });

  it('answers 404 TOOL_NOT_FOUND for an unknown tool', async () => {
    const res = await tg.api('/tools/no_such_tool', { method: 'PATCH', json: { enabled: false }, headers: await tg.ownerHeaders() });
    await expectRefusal(res, 404, 'TOOL_NOT_FOUND');
  });

  it('refuses a client token with 403 FORBIDDEN', async () => {
    await expectRefusal(await tg.api('/tools/spare', { method: 'PATCH', json: { enabled: false } }), 403, 'FORBIDDEN');
    expect(tg.gateway.registry.isEnabled('spare')).toBe(true);
  });

  it('keeps a toggle across a restart on the same data directory', async () => {
    const dataDir = tempDir();
    try {
      const first = await startGateway({ dataDir }, { extraTools: EXTRA_TOOLS });
      try {
        expect((await owner(first, 'spare', false)).status).toBe(200);
      } finally {
        await first.close();
      }
      const second = await startGateway({ dataDir }, { extraTools: EXTRA_TOOLS });
      try {
        expect((await read(await second.api('/tools/spare'))).enabled).toBe(false);
        expect(toolNames((await read(await second.api('/tools/openai'))).tools)).not.toContain('spare');
        await expectRefusal(await post(second, '/tools/spare/execute', {}), 409, 'TOOL_DISABLED');
        // And back on, which also persists.
        expect((await owner(second, 'spare', true)).status).toBe(200);
      } finally {
        await second.close();
      }
      const third = await startGateway({ dataDir }, { extraTools: EXTRA_TOOLS });
      try {
        expect((await read(await third.api('/tools/spare'))).enabled).toBe(true);
      } finally {
        await third.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('POST /tools/{name}/execute', () => {
  it('answers a success envelope {success, result, duration_ms, cached:false, call_id}', async () => {
    const res = await post(tg, '/tools/calculate/execute', { expression: '2 + 3 * 4' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await read(res);
    expect(Object.keys(body).sort()).toEqual(['cached', 'call_id', 'duration_ms', 'result', 'success']);
    expect(body).toMatchObject({ success: true, result: { expression: '2 + 3 * 4', result: 14 }, cached: false });
    expect(typeof body.duration_ms).toBe('number');
    expect(body.duration_ms).toBeGreaterThanOrEqual(0);
    expect(body.call_id).toMatch(/^c_[A-Za-z0-9_-]+$/);
  });

  it('answers a tool that ran and failed with 200, success:false and the tool\'s own error name', async () => {
    const res = await post(tg, '/tools/calculate/execute', { expression: '1 / 0' });
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(body.success).toBe(false);
    expect(body.error.name).toBe('INVALID_EXPRESSION');
    expect(body.error.message).toMatch(/Division by zero/);
    expect(body.call_id).toMatch(/^c_/);

    const missing = await read(await post(tg, '/tools/missing_file/execute', { path: '/nowhere.txt' }));
    expect(missing).toMatchObject({ success: false, error: { name: 'FILE_NOT_FOUND', details: { path: '/nowhere.txt' } } });
  });

  it('answers an unknown tool with 404 TOOL_NOT_FOUND, code 600', async () => {
    const body = await expectRefusal(await post(tg, '/tools/no_such_tool/execute', {}), 404, 'TOOL_NOT_FOUND', 600);
    expect(body.call_id).toMatch(/^c_/);
    expect(body.error.message).toMatch(/GET \/tools/);
  });

  it('answers arguments of the wrong type with 400 INVALID_ARGUMENTS and the schema errors', async () => {
    const body = await expectRefusal(await post(tg, '/tools/calculate/execute', { expression: 42 }), 400, 'INVALID_ARGUMENTS', 602);
    expect(body.error.details.errors).toEqual([{ path: '/expression', message: '"expression" must be string' }]);
  });

  it('answers missing required arguments with 400 INVALID_ARGUMENTS naming the property', async () => {
    const body = await expectRefusal(await post(tg, '/tools/calculate/execute', {}), 400, 'INVALID_ARGUMENTS');
    expect(body.error.details.errors).toEqual([{ path: '', message: 'missing required property "expression"' }]);
  });

  it('rejects an unknown property instead of ignoring it', async () => {
    const body = await expectRefusal(await post(tg, '/tools/calculate/execute', { expression: '1', precision: 2 }), 400, 'INVALID_ARGUMENTS');
    expect(body.error.details.errors).toEqual([{ path: '', message: 'unknown property "precision" in arguments' }]);
    expect(body.error.message).toContain('precision');
  });

  it('reports every problem at once', async () => {
    const body = await expectRefusal(await post(tg, '/tools/echo_defaults/execute', { count: 0, mode: 'warp', extra: true }), 400, 'INVALID_ARGUMENTS');
    expect(body.error.details.errors).toHaveLength(3);
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'hello'],
    ['a number', 5],
    ['null', null],
  ])('refuses %s as the arguments with 400 INVALID_ARGUMENTS', async (_what, json) => {
    await expectRefusal(await post(tg, '/tools/echo_defaults/execute', json), 400, 'INVALID_ARGUMENTS');
  });

  it('applies schema defaults before the tool runs', async () => {
    const body = await read(await post(tg, '/tools/echo_defaults/execute', { text: 'hi' }));
    expect(body).toMatchObject({ success: true, result: { text: 'hi', count: 3, mode: 'fast' } });
    const given = await read(await post(tg, '/tools/echo_defaults/execute', { count: 7, mode: 'slow' }));
    expect(given.result).toEqual({ count: 7, mode: 'slow' });
  });

  it('treats an empty body as no arguments', async () => {
    const res = await tg.api('/tools/echo_defaults/execute', { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await read(res)).result).toEqual({ count: 3, mode: 'fast' });
  });

  it('never runs a sensitive tool without an approval (403 once the question expires, recorded as denied)', async () => {
    sensitiveRuns = 0;
    const body = await expectRefusal(await post(tg, '/tools/sensitive_thing/execute', {}), 403, 'APPROVAL_TIMEOUT');
    expect(sensitiveRuns).toBe(0);
    const record = await read(await tg.api(`/calls/${body.call_id}`));
    expect(record).toMatchObject({ status: 'denied', decision: 'ask', rule: 'risk:sensitive' });
  });
});

describe('result cache', () => {
  it('answers a repeated read-only call from the cache (cached:true), records it, and runs the tool once', async () => {
    lookups = 0;
    const first = await read(await post(tg, '/tools/cached_lookup/execute', { key: 'k1' }));
    const second = await read(await post(tg, '/tools/cached_lookup/execute', { key: 'k1' }));
    const other = await read(await post(tg, '/tools/cached_lookup/execute', { key: 'k2' }));
    expect(first).toMatchObject({ success: true, cached: false, result: { key: 'k1', lookup: 1 } });
    expect(second).toMatchObject({ success: true, cached: true, result: { key: 'k1', lookup: 1 } });
    expect(second.call_id).not.toBe(first.call_id);
    expect(other).toMatchObject({ cached: false, result: { key: 'k2', lookup: 2 } });
    expect(lookups).toBe(2);
    expect(await read(await tg.api(`/calls/${second.call_id}`))).toMatchObject({ status: 'succeeded', cache_hit: true });
    expect((await read(await tg.api('/stats/tools/cached_lookup'))).cache_hits).toBe(1);
  });

  it('forgets a tool\'s cached results when the owner toggles it', async () => {
    lookups = 0;
    await post(tg, '/tools/cached_lookup/execute', { key: 'toggle' });
    expect((await owner(tg, 'cached_lookup', false)).status).toBe(200);
    expect((await owner(tg, 'cached_lookup', true)).status).toBe(200);
    const after = await read(await post(tg, '/tools/cached_lookup/execute', { key: 'toggle' }));
    expect(after).toMatchObject({ cached: false, result: { lookup: 2 } });
  });

  it('never caches a tool that is not read-only and idempotent', async () => {
    const a = await read(await post(tg, '/tools/echo_defaults/execute', { text: 'same' }));
    const b = await read(await post(tg, '/tools/echo_defaults/execute', { text: 'same' }));
    expect([a.cached, b.cached]).toEqual([false, false]);
  });
});

describe('POST /execute', () => {
  it('runs {name, arguments} with the same envelope as /tools/{name}/execute', async () => {
    const res = await post(tg, '/execute', { name: 'calculate', arguments: { expression: '6 * 7' } });
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(body).toMatchObject({ success: true, result: { result: 42 }, cached: false });
    expect(body.call_id).toMatch(/^c_/);
  });

  it('treats missing arguments as {}', async () => {
    const body = await read(await post(tg, '/execute', { name: 'echo_defaults' }));
    expect(body.result).toEqual({ count: 3, mode: 'fast' });
  });

  it('answers unknown tools, bad arguments and tool failures like the per-tool route', async () => {
    await expectRefusal(await post(tg, '/execute', { name: 'no_such_tool', arguments: {} }), 404, 'TOOL_NOT_FOUND', 600);
    await expectRefusal(await post(tg, '/execute', { name: 'calculate', arguments: { expression: [] } }), 400, 'INVALID_ARGUMENTS');
    await expectRefusal(await post(tg, '/execute', { name: 'calculate', arguments: '{"expression":"1"}' }), 400, 'INVALID_ARGUMENTS');
    const failed = await post(tg, '/execute', { name: 'calculate', arguments: { expression: '1 +' } });
    expect(failed.status).toBe(200);
    expect((await read(failed)).error.name).toBe('INVALID_EXPRESSION');
  });

  it.each([
    ['an empty object', {}],
    ['a non-string name', { name: 5, arguments: {} }],
    ['a null name', { name: null }],
    ['an unknown field', { name: 'calculate', arguments: { expression: '1' }, tool_call_id: 'x' }],
    ['an array', [{ name: 'calculate' }]],
    ['a bare string', 'calculate'],
  ])('refuses %s with 400 INVALID_ARGUMENTS', async (_what, json) => {
    await expectRefusal(await post(tg, '/execute', json), 400, 'INVALID_ARGUMENTS');
  });

  it('refuses a missing body with 400', async () => {
    await expectRefusal(await tg.api('/execute', { method: 'POST' }), 400, 'INVALID_ARGUMENTS');
  });
});

describe('POST /tool_calls', () => {
  beforeEach(() => {
    barrier = makeBarrier(3);
  });

  it('answers one role:"tool" message per call, in order, for string (OpenAI) and object (Ollama) arguments', async () => {
    const res = await post(tg, '/tool_calls', {
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'calculate', arguments: '{"expression":"1+1"}' } },
        { id: 'call_b', type: 'function', function: { name: 'calculate', arguments: { expression: '2+2' } } },
        { id: 'call_c', function: { name: 'echo_defaults', arguments: '' } },
        { id: 'call_d', type: 'function', function: { name: 'echo_defaults' } },
      ],
    });
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(Object.keys(body)).toEqual(['messages']);
    expect(body.messages.map((m: { role: string; tool_call_id: string }) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_a'],
      ['tool', 'call_b'],
      ['tool', 'call_c'],
      ['tool', 'call_d'],
    ]);
    for (const m of body.messages) expect(typeof m.content).toBe('string');
    const contents = body.messages.map((m: { content: string }) => JSON.parse(m.content));
    expect(contents[0]).toMatchObject({ success: true, result: { result: 2 } });
    expect(contents[1]).toMatchObject({ success: true, result: { result: 4 } });
    expect(contents[2]).toMatchObject({ success: true, result: { count: 3, mode: 'fast' } });
    expect(contents[3]).toMatchObject({ success: true, result: { count: 3, mode: 'fast' } });
  });

  it('runs the calls concurrently: three calls meet at a barrier that opens only when all three are inside', async () => {
    const res = await post(tg, '/tool_calls', {
      tool_calls: ['one', 'two', 'three'].map((label) => ({
        id: `id_${label}`,
        type: 'function',
        function: { name: 'barrier', arguments: JSON.stringify({ label }) },
      })),
    });
    expect(res.status).toBe(200);
    const contents = (await read(res)).messages.map((m: { content: string }) => JSON.parse(m.content));
    for (const [i, label] of ['one', 'two', 'three'].entries()) {
      expect(contents[i]).toMatchObject({ success: true, result: { label, together: 3 } });
    }
  });

  it('answers a malformed arguments string with INVALID_ARGUMENTS for that call only', async () => {
    const body = await read(
      await post(tg, '/tool_calls', {
        tool_calls: [
          { id: 'ok1', type: 'function', function: { name: 'calculate', arguments: '{"expression":"3*3"}' } },
          { id: 'bad', type: 'function', function: { name: 'calculate', arguments: '{"expression": "3*3"' } },
          { id: 'ok2', type: 'function', function: { name: 'calculate', arguments: '{"expression":"4*4"}' } },
        ],
      }),
    );
    const [ok1, bad, ok2] = body.messages.map((m: { content: string }) => JSON.parse(m.content));
    expect(ok1.result.result).toBe(9);
    expect(bad).toMatchObject({ success: false, error: { name: 'INVALID_ARGUMENTS', code: 602 } });
    expect(bad.error.message).toMatch(/JSON/);
    expect(bad.call_id).toMatch(/^c_/);
    expect(ok2.result.result).toBe(16);
  });

  it('answers an unknown tool in the batch with TOOL_NOT_FOUND and still runs the others', async () => {
    const body = await read(
      await post(tg, '/tool_calls', {
        tool_calls: [
          { id: 'x1', type: 'function', function: { name: 'no_such_tool', arguments: '{}' } },
          { id: 'x2', type: 'function', function: { name: 'calculate', arguments: '{"expression":"10-1"}' } },
        ],
      }),
    );
    const [missing, ran] = body.messages.map((m: { content: string }) => JSON.parse(m.content));
    expect(missing).toMatchObject({ success: false, error: { name: 'TOOL_NOT_FOUND', code: 600 } });
    expect(ran).toMatchObject({ success: true, result: { result: 9 } });
  });

  it('answers schema errors and tool failures inside the message, not as an HTTP error', async () => {
    const res = await post(tg, '/tool_calls', {
      tool_calls: [
        { id: 'v', type: 'function', function: { name: 'calculate', arguments: '{"expression": 1}' } },
        { id: 'f', type: 'function', function: { name: 'calculate', arguments: '{"expression": "1/0"}' } },
        { id: 'a', type: 'function', function: { name: 'calculate', arguments: '[1]' } },
      ],
    });
    expect(res.status).toBe(200);
    const [v, f, a] = (await read(res)).messages.map((m: { content: string }) => JSON.parse(m.content));
    expect(v.error.name).toBe('INVALID_ARGUMENTS');
    expect(v.error.details.errors[0].path).toBe('/expression');
    expect(f.error.name).toBe('INVALID_EXPRESSION');
    expect(a.error.name).toBe('INVALID_ARGUMENTS');
  });

  it('carries back at most 8 MiB of answers: calls not started by then are not run, and say so', async () => {
    // Each answer is a 900,000-character text (text_process building it from a short one): 20 of them would be 18 MB.
    const tool_calls = Array.from({ length: 20 }, (_, i) => ({
      id: `big${i}`,
      type: 'function',
      function: { name: 'text_process', arguments: JSON.stringify({ text: 'a'.repeat(1_000), operation: 'replace', pattern: 'a', replacement: 'b'.repeat(900) }) },
    }));
    const body = await read(await post(tg, '/tool_calls', { tool_calls }));
    expect(body.messages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(tool_calls.map((c) => c.id));
    const contents = body.messages.map((m: { content: string }) => JSON.parse(m.content));
    const ran = contents.filter((c: { success: boolean }) => c.success);
    const skipped = contents.filter((c: { success: boolean }) => !c.success);
    for (const c of ran) expect(c.result.result).toHaveLength(900_000);
    expect(skipped.length).toBeGreaterThan(0);
    for (const c of skipped) {
      expect(c.error).toMatchObject({ name: 'OUTPUT_TOO_LARGE', code: 609, details: { limit: 8 * 2 ** 20 } });
      expect(c.error.message).toMatch(/^Not run: this batch's earlier answers already hold/);
    }
    // Once one is not run, none after it is.
    expect(contents.findIndex((c: { success: boolean }) => !c.success)).toBe(ran.length);
    expect(JSON.stringify(body).length).toBeLessThan(8 * 2 ** 20 + 8 * 1_000_000);
  });

  it('names calls without an id by their position', async () => {
    const body = await read(await post(tg, '/tool_calls', { tool_calls: [{ function: { name: 'echo_defaults', arguments: {} } }, { function: { name: 'echo_defaults' } }] }));
    expect(body.messages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(['call_0', 'call_1']);
  });

  it('answers an empty batch with no messages', async () => {
    const res = await post(tg, '/tool_calls', { tool_calls: [] });
    expect(res.status).toBe(200);
    expect(await read(res)).toEqual({ messages: [] });
  });

  it('runs a batch of 40 calls without leaking listeners onto the response', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const tool_calls = Array.from({ length: 40 }, (_, i) => ({
        id: `n${i}`,
        type: 'function',
        function: { name: 'calculate', arguments: JSON.stringify({ expression: `${i} + 1` }) },
      }));
      const body = await read(await post(tg, '/tool_calls', { tool_calls }));
      expect(body.messages).toHaveLength(40);
      body.messages.forEach((m: { content: string; tool_call_id: string }, i: number) => {
        expect(m.tool_call_id).toBe(`n${i}`);
        expect(JSON.parse(m.content).result.result).toBe(i + 1);
      });
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it.each([
    ['no tool_calls field', {}],
    ['tool_calls that is not a list', { tool_calls: { id: 'a' } }],
    ['a call that is not an object', { tool_calls: ['calculate'] }],
    ['a call without a function', { tool_calls: [{ id: 'a', type: 'function' }] }],
    ['a function without a name', { tool_calls: [{ id: 'a', type: 'function', function: { arguments: '{}' } }] }],
    ['a non-string id', { tool_calls: [{ id: 7, type: 'function', function: { name: 'calculate' } }] }],
    ['a type other than function', { tool_calls: [{ id: 'a', type: 'code', function: { name: 'calculate' } }] }],
    ['a bare array', [{ id: 'a', type: 'function', function: { name: 'calculate' } }]],
  ])('refuses %s with 400 INVALID_ARGUMENTS and runs nothing', async (_what, json) => {
    const before = tg.gateway.store.calls.count();
    await expectRefusal(await post(tg, '/tool_calls', json), 400, 'INVALID_ARGUMENTS');
    expect(tg.gateway.store.calls.count()).toBe(before);
  });

  it('refuses more than 128 calls in one request', async () => {
    const tool_calls = Array.from({ length: 129 }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'echo_defaults' } }));
    const before = tg.gateway.store.calls.count();
    await expectRefusal(await post(tg, '/tool_calls', { tool_calls }), 400, 'INVALID_ARGUMENTS');
    expect(tg.gateway.store.calls.count()).toBe(before);
  });
});

describe('GET /calls and GET /calls/{id}', () => {
  let h: TestGateway;
  let alice: string;
  const asAlice = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    h.api(path, { ...init, headers: { authorization: `Bearer ${alice}`, ...(init.headers as Record<string, string>) } });

  beforeAll(async () => {
    h = await startGateway({}, { extraTools: EXTRA_TOOLS });
    alice = h.gateway.credentials.createClient('alice');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists calls newest first, each with its outcome', async () => {
    const ids: string[] = [];
    for (const expression of ['1+1', '2+2', '3+3']) {
      ids.push((await read(await post(h, '/tools/calculate/execute', { expression }))).call_id);
    }
    const body = await read(await h.api('/calls?tool=calculate'));
    expect(Object.keys(body).sort()).toEqual(['calls', 'next_cursor']);
    expect(body.calls.slice(0, 3).map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    expect(body.calls[0]).toMatchObject({
      id: ids[2],
      tool: 'calculate',
      client: 'default',
      via: 'http',
      arguments: { expression: '3+3' },
      result: { expression: '3+3', result: 6 },
      status: 'succeeded',
      error: null,
      http_status: 200,
      decision: 'allow',
      rule: 'risk:safe',
      cache_hit: false,
    });
    expect(Date.parse(body.calls[0].started_at)).toBeLessThanOrEqual(Date.parse(body.calls[0].finished_at));
    expect(typeof body.calls[0].duration_ms).toBe('number');
  });

  it('records every call, refused ones included, with the client that made it', async () => {
    await owner(h, 'spare', false);
    try {
      const notFound = await read(await asAlice('/tools/no_such_tool/execute', { method: 'POST', json: {} }));
      const disabled = await read(await asAlice('/tools/spare/execute', { method: 'POST', json: {} }));
      const invalid = await read(await asAlice('/tools/calculate/execute', { method: 'POST', json: { expression: false } }));
      const badJson = await read(
        await asAlice('/tool_calls', {
          method: 'POST',
          json: { tool_calls: [{ id: 'q', type: 'function', function: { name: 'calculate', arguments: '{nope' } }] },
        }),
      );
      const failed = await read(await asAlice('/tools/calculate/execute', { method: 'POST', json: { expression: '1/0' } }));
      const ok = await read(await asAlice('/execute', { method: 'POST', json: { name: 'calculate', arguments: { expression: '5' } } }));
      const badJsonId = JSON.parse(badJson.messages[0].content).call_id;

      const list = await read(await h.api('/calls?client=alice'));
      expect(list.calls.map((c: { id: string }) => c.id)).toEqual([ok.call_id, failed.call_id, badJsonId, invalid.call_id, disabled.call_id, notFound.call_id]);
      for (const c of list.calls) expect(c.client).toBe('alice');
      const summary = list.calls.map((c: { tool: string; status: string; http_status: number; error: { name: string } | null; via: string }) => [
        c.tool,
        c.status,
        c.http_status,
        c.error?.name ?? null,
        c.via,
      ]);
      expect(summary).toEqual([
        ['calculate', 'succeeded', 200, null, 'http'],
        ['calculate', 'failed', 200, 'INVALID_EXPRESSION', 'http'],
        ['calculate', 'failed', 400, 'INVALID_ARGUMENTS', 'tool_calls'],
        ['calculate', 'failed', 400, 'INVALID_ARGUMENTS', 'http'],
        ['spare', 'failed', 409, 'TOOL_DISABLED', 'http'],
        ['no_such_tool', 'failed', 404, 'TOOL_NOT_FOUND', 'http'],
      ]);
    } finally {
      h.gateway.registry.setEnabled('spare', true);
    }
  });

  it('filters by tool, status, client and since, alone and together', async () => {
    const bob = h.gateway.credentials.createClient('bob');
    const asBob = (json: unknown) => h.api('/tools/calculate/execute', { method: 'POST', json, headers: { authorization: `Bearer ${bob}` } });
    const first = await read(await asBob({ expression: '1' }));
    const firstRecord = await read(await h.api(`/calls/${first.call_id}`));
    const since = Date.parse(firstRecord.finished_at) + 1;
    await eventually(() => (Date.now() > since ? true : undefined), 'the clock to pass the first call');
    const second = await read(await asBob({ expression: '1/0' }));
    const third = await read(await h.api('/tools/echo_defaults/execute', { method: 'POST', json: {}, headers: { authorization: `Bearer ${bob}` } }));

    const ids = async (query: string) => (await read(await h.api(`/calls?${query}`))).calls.map((c: { id: string }) => c.id);
    expect(await ids('client=bob')).toEqual([third.call_id, second.call_id, first.call_id]);
    expect(await ids('client=bob&tool=calculate')).toEqual([second.call_id, first.call_id]);
    expect(await ids('client=bob&status=failed')).toEqual([second.call_id]);
    expect(await ids('client=bob&status=succeeded')).toEqual([third.call_id, first.call_id]);
    expect(await ids(`client=bob&since=${since}`)).toEqual([third.call_id, second.call_id]);
    expect(await ids(`client=bob&since=${encodeURIComponent(new Date(since).toISOString())}`)).toEqual([third.call_id, second.call_id]);
    expect(await ids(`client=bob&tool=calculate&status=succeeded&since=${since}`)).toEqual([]);
    expect(await ids('client=nobody')).toEqual([]);
    const failedOnly = (await read(await h.api('/calls?status=failed&limit=500'))).calls;
    expect(failedOnly.length).toBeGreaterThan(0);
    for (const c of failedOnly) expect(c.status).toBe('failed');
  });

  it('walks every row exactly once with cursor paging', async () => {
    const pager = h.gateway.credentials.createClient('pager');
    const made: string[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await h.api('/tools/calculate/execute', { method: 'POST', json: { expression: `${i}` }, headers: { authorization: `Bearer ${pager}` } });
      made.push((await read(res)).call_id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `client=pager&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { calls: { id: string }[]; next_cursor: string | null } = await read(await h.api(`/calls?${query}`));
      expect(page.calls.length).toBeLessThanOrEqual(3);
      seen.push(...page.calls.map((c) => c.id));
      cursor = page.next_cursor;
      pages++;
      expect(pages).toBeLessThan(20);
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual([...made].reverse());
    expect(new Set(seen).size).toBe(11);
  });

  it('answers the last page with next_cursor null', async () => {
    const body = await read(await h.api('/calls?client=pager&limit=500'));
    expect(body.next_cursor).toBeNull();
    expect(body.calls).toHaveLength(11);
  });

  it.each([
    ['an unknown status', 'status=bogus'],
    ['a zero limit', 'limit=0'],
    ['a limit over 500', 'limit=501'],
    ['a fractional limit', 'limit=2.5'],
    ['a non-numeric limit', 'limit=ten'],
    ['an unparseable since', 'since=yesterday'],
    ['an unknown filter', 'colour=blue'],
    ['a repeated filter', 'tool=a&tool=b'],
    ['a cursor this gateway never gave out', 'cursor=not-a-cursor'],
    ['a negative cursor', `cursor=${Buffer.from('-5').toString('base64url')}`],
  ])('refuses %s with 400 INVALID_ARGUMENTS', async (_what, query) => {
    await expectRefusal(await h.api(`/calls?${query}`), 400, 'INVALID_ARGUMENTS');
  });

  it('GET /calls/{id} answers one recorded call', async () => {
    const made = await read(await post(h, '/tools/calculate/execute', { expression: '7*6' }));
    const res = await h.api(`/calls/${made.call_id}`);
    expect(res.status).toBe(200);
    const record = await read(res);
    expect(record).toMatchObject({ id: made.call_id, tool: 'calculate', status: 'succeeded', result: { result: 42 } });
    // The list adds the arguments line the call's live row shows.
    const listed = (await read(await h.api('/calls?limit=1'))).calls[0];
    expect(listed).toEqual({ ...record, preview: '7*6' });
  });

  it('GET /calls/{id} answers 404 NOT_FOUND for an unknown id', async () => {
    const body = await expectRefusal(await h.api('/calls/c_doesnotexist'), 404, 'NOT_FOUND', 404);
    expect(body.error.message).toContain('c_doesnotexist');
  });

  it('GET /calls/{id} shows a call that is still running', async () => {
    gate.reset();
    const pending = post(h, '/tools/gate/execute', {});
    const { callId } = await gate.entered.promise;
    const running = await read(await h.api(`/calls/${callId}`));
    expect(running).toMatchObject({ id: callId, tool: 'gate', status: 'running', finished_at: null, result: null });
    gate.release.resolve();
    const done = await read(await pending);
    expect(done).toMatchObject({ success: true, call_id: callId });
    expect((await read(await h.api(`/calls/${callId}`))).status).toBe('succeeded');
  });

  it('keeps secrets out of history while the tool gets the real values', async () => {
    seenSecrets.length = 0;
    const secret = { api_key: 'sk-live-0123456789abcdef', password: 'hunter2-correct-horse', token: 'tok-nested-secret-value' };
    const res = await post(h, '/tools/sign_in/execute', {
      user: 'ann',
      api_key: secret.api_key,
      password: secret.password,
      options: { token: secret.token, region: 'eu' },
    });
    const body = await read(res);
    expect(body).toMatchObject({ success: true, result: { user: 'ann', key_length: secret.api_key.length, password_length: secret.password.length } });
    expect(seenSecrets).toEqual([{ user: 'ann', api_key: secret.api_key, password: secret.password, options: { token: secret.token, region: 'eu' } }]);

    const record = await read(await h.api(`/calls/${body.call_id}`));
    expect(record.arguments).toEqual({ user: 'ann', api_key: '[REDACTED]', password: '[REDACTED]', options: { token: '[REDACTED]', region: 'eu' } });
    const listed = (await read(await h.api('/calls?tool=sign_in'))).calls[0];
    expect(listed.arguments.api_key).toBe('[REDACTED]');

    // A refused call is recorded too, and just as redacted.
    const refused = await expectRefusal(await post(h, '/tools/sign_in/execute', { user: 'ann', api_key: 'sk', password: secret.password }), 400, 'INVALID_ARGUMENTS');
    const refusedRecord = await read(await h.api(`/calls/${refused.call_id}`));
    expect(refusedRecord.arguments).toEqual({ user: 'ann', api_key: '[REDACTED]', password: '[REDACTED]' });

    // Nothing on disk holds the secrets: not the database, not its write-ahead log.
    h.gateway.store.calls.count();
    for (const file of readdirSync(h.dataDir).filter((f) => f.startsWith('pincer.db'))) {
      const bytes = readFileSync(join(h.dataDir, file)).toString('latin1');
      for (const value of Object.values(secret)) expect(bytes.includes(value), `${file} holds ${value}`).toBe(false);
    }
  });
});

describe('GET /calls: secrets in arguments the gateway could not decode', () => {
  let h: TestGateway;
  beforeAll(async () => {
    h = await startGateway({}, { extraTools: EXTRA_TOOLS });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('keeps a secret in a malformed tool_call arguments string out of history, events and the database', async () => {
    const secret = 'hunter2-super-secret-pw';
    const stream = await EventStream.open(h);
    try {
      const body = await read(
        await post(h, '/tool_calls', {
          tool_calls: [
            { id: 'leaky', type: 'function', function: { name: 'sign_in', arguments: `{"user": "ann", "password": ${secret}}` } },
            { id: 'leaky2', type: 'function', function: { name: 'sign_in', arguments: `{"user": "ann", "api_key": "${secret}", }` } },
          ],
        }),
      );
      const contents = body.messages.map((m: { content: string }) => JSON.parse(m.content));
      for (const content of contents) {
        expect(content.error.name).toBe('INVALID_ARGUMENTS');
        // The model still learns what is wrong with its JSON.
        expect(content.error.message).toMatch(/not valid JSON/);
      }
      for (const content of contents) {
        const record = await read(await h.api(`/calls/${content.call_id}`));
        expect(record).toMatchObject({ tool: 'sign_in', status: 'failed', error: { name: 'INVALID_ARGUMENTS' } });
        expect(JSON.stringify(record)).not.toContain(secret);
        expect(JSON.stringify(record)).not.toContain('hunter2');
        const event = await stream.next((e) => e.event === 'call' && e.data.call.id === content.call_id);
        expect(JSON.stringify(event.data)).not.toContain('hunter2');
      }
      expect(JSON.stringify(await read(await h.api('/calls?tool=sign_in')))).not.toContain('hunter2');
      for (const file of readdirSync(h.dataDir).filter((f) => f.startsWith('pincer.db'))) {
        expect(readFileSync(join(h.dataDir, file)).toString('latin1').includes('hunter2'), file).toBe(false);
      }
    } finally {
      await stream.close();
    }
  });
});

describe('closing the gateway', () => {
  it('lets a running call finish within the grace period and still answers its caller', async () => {
    const h = await startGateway({}, { extraTools: EXTRA_TOOLS });
    gate.reset();
    const pending = post(h, '/tools/gate/execute', {});
    const { callId } = await gate.entered.promise;
    const closing = h.gateway.close(30_000);
    gate.release.resolve();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await read(res)).toMatchObject({ success: true, call_id: callId, result: { released: true } });
    await closing;
    await h.close();
  });

  it('cancels a call still running when the grace period ends, records it, and refuses new calls meanwhile', async () => {
    const h = await startGateway({}, { extraTools: EXTRA_TOOLS });
    const dataDir = h.dataDir;
    gate.reset();
    const pending = post(h, '/tools/gate/execute', {}).then(
      (res) => res,
      (error: unknown) => error,
    );
    const { callId, signal } = await gate.entered.promise;
    const closing = h.gateway.close(300);
    const refused = await post(h, '/tools/calculate/execute', { expression: '1' }).catch((error: unknown) => error);
    if (refused instanceof Response) await expectRefusal(refused, 503, 'CALL_CANCELLED');
    await closing;
    expect(signal.aborted).toBe(true);
    await pending;
    // The record survives on disk: a new gateway on the same directory shows it cancelled.
    const again = await startGateway({ dataDir }, { extraTools: EXTRA_TOOLS });
    try {
      expect(await read(await again.api(`/calls/${callId}`))).toMatchObject({ status: 'cancelled', error: { name: 'CALL_CANCELLED' } });
    } finally {
      await again.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    gate.release.resolve();
  });
});

describe('GET /events', () => {
  let stream: EventStream | undefined;
  afterEach(async () => {
    await stream?.close();
    stream = undefined;
    tg.gateway.registry.setEnabled('spare', true);
  });

  it('streams text/event-stream, starting with hello and the version', async () => {
    stream = await EventStream.open(tg);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.events[0]).toEqual({ event: 'hello', data: { version: VERSION } });
  });

  it('sends call events: started, then succeeded, for the same call', async () => {
    stream = await EventStream.open(tg);
    const made = await read(await post(tg, '/tools/calculate/execute', { expression: '9-1' }));
    const started = await stream.next((e) => e.event === 'call' && e.data.call.id === made.call_id && e.data.phase === 'started');
    const finished = await stream.next((e) => e.event === 'call' && e.data.call.id === made.call_id && e.data.phase === 'succeeded');
    expect(started.data.call).toMatchObject({ tool: 'calculate', status: 'running', client: 'default' });
    expect(finished.data.call).toMatchObject({ tool: 'calculate', status: 'succeeded', preview: '9-1', decision: 'allow', cache_hit: false });
    // The event is what a live row shows; the result is one GET /calls/{id} away.
    expect(finished.data.call).not.toHaveProperty('result');
    expect(finished.data.call).not.toHaveProperty('arguments');
    expect(await read(await tg.api(`/calls/${made.call_id}`))).toMatchObject({ result: { result: 8 } });
    const mine = stream.events.filter((e) => e.event === 'call' && e.data.call.id === made.call_id).map((e) => e.data.phase);
    expect(mine).toEqual(['started', 'succeeded']);
  });

  it('sends failed for a tool that fails and for a refused call, with secrets redacted', async () => {
    stream = await EventStream.open(tg);
    const failed = await read(await post(tg, '/tools/crash/execute', {}));
    const refused = await read(await post(tg, '/tools/no_such_tool/execute', {}));
    const signIn = await read(await post(tg, '/tools/sign_in/execute', { user: 'u', password: 'p4ssw0rd-in-event' }));
    expect((await stream.next((e) => e.event === 'call' && e.data.call.id === failed.call_id && e.data.phase === 'failed')).data.call.error.name).toBe(
      'TOOL_EXECUTION_ERROR',
    );
    expect((await stream.next((e) => e.event === 'call' && e.data.call.id === refused.call_id)).data.phase).toBe('failed');
    const signEvent = await stream.next((e) => e.event === 'call' && e.data.call.id === signIn.call_id && e.data.phase === 'started');
    expect(signEvent.data.call.preview).toContain('[REDACTED]');
    expect(JSON.stringify(signEvent.data)).not.toContain('p4ssw0rd-in-event');
  });

  it('sends pending, then denied, for a call that waited for an approval that never came', async () => {
    stream = await EventStream.open(tg);
    const denied = await read(await post(tg, '/tools/sensitive_thing/execute', {}));
    const pending = await stream.next((e) => e.event === 'call' && e.data.call.id === denied.call_id);
    expect(pending.data).toMatchObject({ phase: 'pending', call: { status: 'pending' } });
    const event = await stream.next((e) => e.event === 'call' && e.data.call.id === denied.call_id && e.data.phase !== 'pending');
    expect(event.data).toMatchObject({ phase: 'denied', call: { status: 'denied', error: { name: 'APPROVAL_TIMEOUT' } } });
  });

  it('sends a tools event when a tool is toggled', async () => {
    stream = await EventStream.open(tg);
    expect((await owner(tg, 'spare', false)).status).toBe(200);
    const event = await stream.next((e) => e.event === 'tools');
    expect(event.data).toEqual({ reason: 'toggled', names: ['spare'] });
  });

  it('needs a token like every other read', async () => {
    const res = await fetch(`${tg.url}/events`);
    await expectRefusal(res, 401, 'AUTH_MISSING');
  });
});

describe('GET /stats and GET /stats/tools/{name}', () => {
  let s: TestGateway;
  const ids: string[] = [];
  beforeAll(async () => {
    s = await startGateway({}, { extraTools: EXTRA_TOOLS });
    for (const json of [{ expression: '1' }, { expression: '2' }, { expression: '1/0' }, { expression: '3' }, { expression: 4 }]) {
      ids.push((await read(await post(s, '/tools/calculate/execute', json))).call_id);
    }
    ids.push((await read(await post(s, '/tools/crash/execute', {}))).call_id);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('GET /stats/tools/{name} counts calls, success rate, latency, top errors and the last call', async () => {
    const res = await s.api('/stats/tools/calculate');
    expect(res.status).toBe(200);
    const stats = await read(res);
    // Of five calls, four ran (three succeeded, one failed) and one was refused for its arguments.
    expect(stats).toMatchObject({
      tool: 'calculate',
      calls: 5,
      succeeded: 3,
      failed: 1,
      refused: 1,
      denied: 0,
      cache_hits: 0,
      success_rate: 0.75,
      top_errors: [
        { name: 'INVALID_ARGUMENTS', count: 1 },
        { name: 'INVALID_EXPRESSION', count: 1 },
      ],
      last_call: { id: ids[4], status: 'failed' },
    });
    expect(Date.parse(stats.last_call.at)).not.toBeNaN();
    const { avg, p50, p95, max } = stats.latency_ms;
    for (const v of [avg, p50, p95, max]) {
      expect(typeof v).toBe('number');
      expect(v).toBeGreaterThanOrEqual(0);
    }
    expect(p50).toBeLessThanOrEqual(p95);
    expect(p95).toBeLessThanOrEqual(max);
    expect(avg).toBeLessThanOrEqual(max);
  });

  it('GET /stats/tools/{name} answers a tool with no calls with zeros and nulls', async () => {
    const stats = await read(await s.api('/stats/tools/get_time'));
    expect(stats).toEqual({
      tool: 'get_time',
      calls: 0,
      succeeded: 0,
      failed: 0,
      refused: 0,
      denied: 0,
      success_rate: null,
      cache_hits: 0,
      latency_ms: { avg: null, p50: null, p95: null, p99: null, max: null },
      top_errors: [],
      last_call: null,
    });
  });

  it('GET /stats/tools/{name} answers 404 TOOL_NOT_FOUND for an unknown tool', async () => {
    await expectRefusal(await s.api('/stats/tools/never_heard_of_it'), 404, 'TOOL_NOT_FOUND', 600);
  });

  it('GET /stats has totals, per-tool stats, calls over time and cache stats', async () => {
    const body = await read(await s.api('/stats'));
    expect(body.totals).toEqual({ calls: 6, succeeded: 3, failed: 2, refused: 1, denied: 0, cache_hits: 0 });
    const names = body.tools.map((t: { tool: string }) => t.tool);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['calculate', 'crash', 'get_time']));
    expect(body.tools.find((t: { tool: string }) => t.tool === 'crash')).toMatchObject({ calls: 1, failed: 1, success_rate: 0, top_errors: [{ name: 'TOOL_EXECUTION_ERROR', count: 1 }] });
    expect(body.over_time.bucket_s).toBe(3600);
    expect(body.over_time.buckets.reduce((n: number, b: { calls: number }) => n + b.calls, 0)).toBe(6);
    expect(body.over_time.buckets.reduce((n: number, b: { failed: number }) => n + b.failed, 0)).toBe(3);
    expect(body.cache).toEqual(expect.objectContaining({ hits: expect.any(Number), misses: expect.any(Number) }));
  });

  it('made-up tool names sent by a client do not show up in the statistics', async () => {
    const junk = await s.api('/tools/zz_junk_name/execute', { method: 'POST', json: {} });
    expect(junk.status).toBe(404);
    const names = (await read(await s.api('/stats'))).tools.map((t: { tool: string }) => t.tool);
    expect(names).not.toContain('zz_junk_name');
    await expectRefusal(await s.api('/stats/tools/zz_junk_name'), 404, 'TOOL_NOT_FOUND', 600);
  });
});

describe('limits on a running tool', () => {
  it('stops a tool at its time limit: 200 TOOL_TIMEOUT, and its abort signal fired', async () => {
    sleeper.signal = undefined;
    sleeper.abortSeen = false;
    const res = await post(tg, '/tools/sleeper/execute', {});
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(body).toMatchObject({ success: false, error: { name: 'TOOL_TIMEOUT', code: 604, details: { timeout_ms: 200 } } });
    expect(body.error.message).toMatch(/200 ms/);
    expect((sleeper.signal as AbortSignal | undefined)?.aborted).toBe(true);
    expect(sleeper.abortSeen).toBe(true);
    const record = await read(await tg.api(`/calls/${body.call_id}`));
    expect(record).toMatchObject({ status: 'failed', error: { name: 'TOOL_TIMEOUT' }, result: null });
  });

  it('answers at the time limit even when a tool ignores its signal', async () => {
    const body = await read(await post(tg, '/tools/stubborn/execute', {}));
    expect(body).toMatchObject({ success: false, error: { name: 'TOOL_TIMEOUT' } });
  });

  it('refuses output over the cap with OUTPUT_TOO_LARGE, without sending the output', async () => {
    const res = await post(tg, '/tools/huge/execute', {});
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(10_000);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ success: false, error: { name: 'OUTPUT_TOO_LARGE', code: 609 } });
    expect(body.error.details.bytes).toBeGreaterThan(body.error.details.limit);
    const record = await read(await tg.api(`/calls/${body.call_id}`));
    expect(record.result).toBeNull();
  });

  it('turns a plain Error thrown by a tool into TOOL_EXECUTION_ERROR with its message and no stack', async () => {
    const res = await post(tg, '/tools/crash/execute', {});
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(body).toMatchObject({ success: false, error: { name: 'TOOL_EXECUTION_ERROR', code: 603 } });
    expect(body.error.message).toContain('the flux capacitor is out of flux');
    expect(text).not.toMatch(/\s+at\s+/);
    expect(text).not.toMatch(/\.ts:\d+/);
  });

  it('cancels the call when the caller hangs up: the tool\'s signal fires and the call is recorded cancelled', async () => {
    gate.reset();
    const controller = new AbortController();
    const hangUp = tg.api('/tools/gate/execute', { method: 'POST', json: {}, signal: controller.signal }).catch((error: unknown) => error);
    const { callId, signal } = await gate.entered.promise;
    controller.abort();
    expect(await hangUp).toBeInstanceOf(Error);
    await gate.aborted.promise;
    expect(signal.aborted).toBe(true);
    const record = await eventually(async () => {
      const r = await read(await tg.api(`/calls/${callId}`));
      return r.status === 'running' ? undefined : r;
    }, 'the cancelled call to be recorded');
    expect(record).toMatchObject({ status: 'cancelled', error: { name: 'CALL_CANCELLED' } });
    gate.release.resolve();
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/no/such/route'],
    ['POST', '/no/such/route'],
    ['GET', '/tools/calculate/execute/now'],
  ])('answers %s %s with a 404 NOT_FOUND envelope', async (method, path) => {
    const res = await tg.api(path, { method });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    await expectRefusal(res, 404, 'NOT_FOUND', 404);
  });

  it.each([
    ['POST', '/tools', 'GET, HEAD'],
    ['DELETE', '/tools/calculate', 'GET, PATCH, HEAD'],
    ['GET', '/tools/calculate/execute', 'POST'],
    ['PUT', '/calls', 'GET, HEAD'],
  ])('answers %s %s, a path that takes other methods, with a 405 METHOD_NOT_ALLOWED envelope and Allow: %s', async (method, path, allow) => {
    const res = await tg.api(path, { method });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('allow')).toBe(allow);
    const body = await expectRefusal(res, 405, 'METHOD_NOT_ALLOWED', 405);
    expect(body.error.message).toMatch(new RegExp(`^${path} takes .+, not ${method}\\.$`));
  });
});

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, generateToken, loadOrCreateSecret } from '../../server/auth/secrets.js';
import { GatewayError } from '../../server/errors.js';
import { ResultCache } from '../../server/executor/cache.js';
import { callKey } from '../../server/util/call-key.js';
import { nestingDepth, parseUntrustedJson } from '../../server/util/json.js';
import { RegistryError, ToolRegistry, type RegistryEvents } from '../../server/tools/registry.js';
import type { AnyTool } from '../../server/tools/types.js';
import { compileValidator } from '../../server/tools/validator.js';
import { REDACTED, redactSecrets } from '../../server/util/redact.js';

/** A valid, safe tool; override what a test is about. */
function tool(overrides: Partial<AnyTool> = {}): AnyTool {
  return {
    name: 'echo',
    description: 'Echoes its input.',
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
    category: 'test',
    risk: 'safe',
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: (args: unknown) => args,
    ...overrides,
  };
}

/** The RegistryError a registration is refused with. */
function registrationError(registry: ToolRegistry, definition: AnyTool, source?: string): string {
  const before = registry.list().length;
  let error: unknown;
  try {
    registry.register(definition, source);
  } catch (caught) {
    error = caught;
  }
  expect(error, `"${String(definition.name)}" was registered`).toBeInstanceOf(RegistryError);
  expect(registry.list()).toHaveLength(before);
  return (error as RegistryError).message;
}

function recordEvents(registry: ToolRegistry): RegistryEvents['changed'][0][] {
  const events: RegistryEvents['changed'][0][] = [];
  registry.on('changed', (event) => events.push(event));
  return events;
}

describe('ToolRegistry held names', () => {
  it('knows a held name and its holder\'s message, without listing or registering it', () => {
    const registry = new ToolRegistry();
    registry.setHeld('plugin:p', new Map([['later', 'Waits for the owner (pincer plugin accept p).']]));
    expect(registry.held('later')).toEqual({ source: 'plugin:p', message: 'Waits for the owner (pincer plugin accept p).' });
    expect(registry.get('later')).toBeUndefined();
    expect(registry.list()).toEqual([]);
    expect(registry.held('other')).toBeUndefined();
  });

  it('replaces what a source held with each call, and an empty map releases them', () => {
    const registry = new ToolRegistry();
    registry.setHeld('mcp:s', new Map([['s__a', 'a'], ['s__b', 'b']]));
    registry.setHeld('plugin:p', new Map([['p_x', 'x']]));
    registry.setHeld('mcp:s', new Map([['s__b', 'b2']]));
    expect(registry.held('s__a')).toBeUndefined();
    expect(registry.held('s__b')?.message).toBe('b2');
    registry.setHeld('mcp:s', new Map());
    expect(registry.held('s__b')).toBeUndefined();
    expect(registry.held('p_x')?.source).toBe('plugin:p');
  });
});

describe('registry: tool names', () => {
  it.each([
    ['a single letter', 'a'],
    ['letters, digits, _ and -', 'Read_File-2'],
    ['exactly 64 characters', 'x'.repeat(64)],
    ['a name that only starts with a reserved word', 'openai_search'],
  ])('accepts %s', (_what, name) => {
    expect(new ToolRegistry().register(tool({ name })).definition.name).toBe(name);
  });

  it.each([
    ['65 characters', 'x'.repeat(65)],
    ['the empty name', ''],
    ['a space', 'read file'],
    ['a dot', 'file.read'],
    ['a slash', 'files/read'],
    ['a trailing newline', 'read_file\n'],
    ['an accented letter', 'café'],
    ['Chinese characters', '读取文件'],
    ['an emoji', 'tool_🔧'],
  ])('refuses %s', (_what, name) => {
    expect(registrationError(new ToolRegistry(), tool({ name }))).toContain('1–64 characters');
  });

  it('refuses a name that is not a string', () => {
    expect(registrationError(new ToolRegistry(), tool({ name: 42 as unknown as string }))).toContain('name');
  });

  it.each(['openai', 'anthropic', 'mcp', 'search', 'OpenAI', 'ANTHROPIC', 'Mcp', 'Search'])('refuses the reserved name %s', (name) => {
    expect(registrationError(new ToolRegistry(), tool({ name }))).toContain(`"${name}" is a reserved name`);
  });

  it('refuses a duplicate, naming the source of the first and of the newcomer', () => {
    const registry = new ToolRegistry();
    const first = registry.register(tool(), 'builtin');
    const message = registrationError(registry, tool({ description: 'Another echo.' }), 'plugin:copycat');
    expect(message).toContain('plugin:copycat');
    expect(message).toContain('already registered by builtin');
    expect(registry.get('echo')).toBe(first);
  });

  it('lets a name be registered again after it was unregistered', () => {
    const registry = new ToolRegistry();
    registry.register(tool(), 'plugin:a');
    expect(registry.unregister('echo')).toBe(true);
    expect(registry.register(tool(), 'plugin:b').source).toBe('plugin:b');
  });
});

describe('registry: definitions', () => {
  it.each([
    ['type "array"', { type: 'array' }],
    ['no type', { properties: {} }],
    ['null', null],
    ['a list', []],
  ])('refuses parameters with %s', (_what, parameters) => {
    const message = registrationError(new ToolRegistry(), tool({ parameters: parameters as never }));
    expect(message).toContain('parameters must be a JSON Schema with type "object"');
  });

  it('refuses an invalid JSON Schema with a message naming the tool, its source and the problem', () => {
    const message = registrationError(
      new ToolRegistry(),
      tool({ name: 'broken', parameters: { type: 'object', properties: { n: { type: 'integr' } } } }),
      'plugin:bad',
    );
    expect(message).toMatch(/^Cannot register tool "broken" from plugin:bad: its parameters are not a valid JSON Schema \(/);
    expect(message).toContain('properties/n/type');
  });

  it('refuses a schema with a dangling $ref', () => {
    const parameters = { type: 'object' as const, properties: { n: { $ref: '#/$defs/missing' } } };
    expect(registrationError(new ToolRegistry(), tool({ parameters }))).toContain('not a valid JSON Schema');
  });

  it.each([
    ['an empty description', { description: '  ' }, 'a description is required'],
    ['no category', { category: '' }, 'a category is required'],
    ['an unknown risk', { risk: 'spicy' as never }, 'risk must be one of safe, sensitive, dangerous'],
    ['no handler', { handler: undefined as never }, 'a handler function is required'],
    ['no annotations', { annotations: undefined as never }, 'annotations are required'],
  ])('refuses %s', (_what, overrides, expected) => {
    expect(registrationError(new ToolRegistry(), tool(overrides))).toContain(expected);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])('refuses timeoutMs %s', (timeoutMs) => {
    expect(registrationError(new ToolRegistry(), tool({ timeoutMs }))).toContain('timeoutMs');
  });

  it('accepts a timeoutMs up to the longest timer Node can run', () => {
    expect(new ToolRegistry().register(tool({ timeoutMs: 2 ** 31 - 1 })).definition.timeoutMs).toBe(2 ** 31 - 1);
  });

  it('allows a cache on a tool annotated readOnlyHint and idempotentHint', () => {
    const registered = new ToolRegistry().register(tool({ cache: { ttl_s: 60 } }));
    expect(registered.definition.cache).toEqual({ ttl_s: 60 });
  });

  it.each([
    ['read-only but not idempotent', { readOnlyHint: true }],
    ['idempotent but not read-only', { idempotentHint: true }],
    ['neither', {}],
    ['a destructive write', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
  ])('refuses a cache on a tool that is %s', (_what, annotations) => {
    const message = registrationError(new ToolRegistry(), tool({ annotations, cache: { ttl_s: 60 } }));
    expect(message).toContain('only tools annotated readOnlyHint and idempotentHint may declare a cache');
  });

  it.each([0, -5, Number.NaN])('refuses cache.ttl_s %s', (ttl_s) => {
    expect(registrationError(new ToolRegistry(), tool({ cache: { ttl_s } }))).toContain('cache.ttl_s');
  });

  it('registers a tool whose schema has an $id again after it was unregistered (plugin reload)', () => {
    const withId = () =>
      tool({ parameters: { $id: 'https://pincer.test/echo.json', type: 'object', properties: { text: { type: 'string' } } } });
    const registry = new ToolRegistry();
    registry.register(withId());
    registry.unregister('echo');
    const again = registry.register(withId());
    expect(again.validate({ text: 'hi' })).toEqual({ ok: true });
    // And a second registry in the same process (a second gateway) accepts it too.
    expect(new ToolRegistry().register(withId()).validate({ text: 1 }).ok).toBe(false);
  });
});

describe('registry: unknown properties are closed off', () => {
  it('adds additionalProperties:false when the tool did not say, without touching its definition', () => {
    const definition = tool();
    const registered = new ToolRegistry().register(definition);
    expect(registered.parameters.additionalProperties).toBe(false);
    expect(definition.parameters.additionalProperties).toBeUndefined();
    expect(registered.validate({ text: 'a', invented: 1 })).toEqual({
      ok: false,
      problems: [{ path: '', message: 'unknown property "invented" in arguments' }],
    });
  });

  it('keeps additionalProperties:true when the tool set it', () => {
    const registered = new ToolRegistry().register(
      tool({ parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: true } }),
    );
    expect(registered.parameters.additionalProperties).toBe(true);
    expect(registered.validate({ text: 'a', extra: 1 })).toEqual({ ok: true });
  });

  it('keeps an additionalProperties schema the tool set', () => {
    const registered = new ToolRegistry().register(
      tool({ parameters: { type: 'object', additionalProperties: { type: 'number' } } }),
    );
    expect(registered.validate({ a: 1, b: 2 })).toEqual({ ok: true });
    expect(registered.validate({ a: 'x' })).toEqual({ ok: false, problems: [{ path: '/a', message: '"a" must be number' }] });
  });
});

describe('validator', () => {
  const schema = {
    type: 'object' as const,
    properties: {
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
      count: { type: 'integer', default: 3 },
      nested: {
        type: 'object',
        properties: { flag: { type: 'boolean', default: false }, name: { type: 'string' } },
        required: ['name'],
      },
      query: { type: 'string' },
    },
    required: ['query'],
    additionalProperties: false,
  };

  it('fills in defaults, including inside nested objects', () => {
    const args: Record<string, unknown> = { query: 'q', nested: { name: 'n' } };
    expect(compileValidator(schema)(args)).toEqual({ ok: true });
    expect(args).toEqual({ query: 'q', mode: 'fast', count: 3, nested: { name: 'n', flag: false } });
  });

  it('does not coerce types: "3" is not an integer', () => {
    expect(compileValidator(schema)({ query: 'q', count: '3' })).toEqual({
      ok: false,
      problems: [{ path: '/count', message: '"count" must be integer' }],
    });
  });

  it('lists every problem, each with a JSON Pointer path', () => {
    const result = compileValidator(schema)({ mode: 'medium', count: 1.5, nested: { flag: 'yes' }, extra: true });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '', message: 'missing required property "query"' },
        { path: '', message: 'unknown property "extra" in arguments' },
        { path: '/mode', message: '"mode" must be one of "fast", "slow"' },
        { path: '/count', message: '"count" must be integer' },
        { path: '/nested', message: 'missing required property "name"' },
        { path: '/nested/flag', message: '"nested.flag" must be boolean' },
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  it('refuses arguments that are not an object', () => {
    for (const args of [null, [], 'text', 1]) {
      expect(compileValidator(schema)(args)).toEqual({ ok: false, problems: [{ path: '', message: 'arguments must be object' }] });
    }
  });

  it('checks formats', () => {
    const validate = compileValidator({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } });
    expect(validate({ at: '2026-01-01T00:00:00Z' })).toEqual({ ok: true });
    expect(validate({ at: 'yesterday' })).toEqual({ ok: false, problems: [{ path: '/at', message: '"at" must match format "date-time"' }] });
  });
});

describe('registry: state and events', () => {
  it('announces a registration and an unregistration', () => {
    const registry = new ToolRegistry();
    const events = recordEvents(registry);
    registry.register(tool());
    registry.unregister('echo');
    expect(registry.unregister('echo')).toBe(false);
    expect(events).toEqual([
      { reason: 'registered', names: ['echo'] },
      { reason: 'unregistered', names: ['echo'] },
    ]);
  });

  it('announces nothing for a refused registration', () => {
    const registry = new ToolRegistry();
    const events = recordEvents(registry);
    registrationError(registry, tool({ name: 'mcp' }));
    expect(events).toEqual([]);
  });

  it('announces a toggle once, and not a toggle to the state it is already in', () => {
    const registry = new ToolRegistry();
    registry.register(tool());
    const events = recordEvents(registry);
    registry.setEnabled('echo', true);
    registry.setEnabled('echo', false);
    registry.setEnabled('echo', false);
    expect(registry.isEnabled('echo')).toBe(false);
    registry.setEnabled('echo', true);
    expect(registry.isEnabled('echo')).toBe(true);
    expect(events).toEqual([
      { reason: 'toggled', names: ['echo'] },
      { reason: 'toggled', names: ['echo'] },
    ]);
  });

  it('restores persisted toggles silently, including for tools registered later', () => {
    const registry = new ToolRegistry();
    registry.register(tool());
    const events = recordEvents(registry);
    registry.restoreDisabled(['echo', 'from_plugin']);
    expect(events).toEqual([]);
    expect(registry.isEnabled('echo')).toBe(false);
    registry.register(tool({ name: 'from_plugin' }), 'plugin:p');
    expect(registry.isEnabled('from_plugin')).toBe(false);
  });

  it('lists tools in registration order and finds them by name', () => {
    const registry = new ToolRegistry();
    registry.register(tool({ name: 'b' }));
    registry.register(tool({ name: 'a' }), 'plugin:x');
    expect(registry.list().map((t) => [t.definition.name, t.source])).toEqual([
      ['b', 'builtin'],
      ['a', 'plugin:x'],
    ]);
    expect(registry.get('a')?.source).toBe('plugin:x');
    expect(registry.get('c')).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  it.each([
    'token',
    'password',
    'passwd',
    'api_key',
    'apiKey',
    'x-api-key',
    'APIKey',
    'Authorization',
    'secret',
    'client_secret',
    'cookie',
    'Set-Cookie',
    'private_key',
    'privateKey',
    'access_token',
    'refreshToken',
    'sessionId',
    'credentials',
    'token2',
  ])('redacts the value of %s', (key) => {
    expect(redactSecrets({ [key]: 'hunter2-secret-value', keep: 'visible' })).toEqual({ [key]: REDACTED, keep: 'visible' });
  });

  it('redacts secrets nested in objects and arrays', () => {
    const input = {
      user: 'ann',
      config: { db: { password: 'p4ss', host: 'db.local' }, list: [{ api_key: 'k1' }, { api_key: 'k2', region: 'eu' }] },
      headers: [['Accept', 'text/html']],
    };
    expect(redactSecrets(input)).toEqual({
      user: 'ann',
      config: { db: { password: REDACTED, host: 'db.local' }, list: [{ api_key: REDACTED }, { api_key: REDACTED, region: 'eu' }] },
      headers: [['Accept', 'text/html']],
    });
  });

  it('redacts a whole object or list under a secret key', () => {
    expect(redactSecrets({ credentials: { user: 'a', pass: 'b' }, tokens: ['t1', 't2'] })).toEqual({
      credentials: REDACTED,
      tokens: REDACTED,
    });
  });

  it('redacts "Bearer …" and "Basic …" values wherever they are, keeping the scheme', () => {
    expect(
      redactSecrets({ header: 'Bearer eyJhbGciOiJIUzI1NiJ9.payload', list: ['ok', 'basic dXNlcjpwYXNzd29yZA=='], short: 'Bearer x' }),
    ).toEqual({ header: `Bearer ${REDACTED}`, list: ['ok', `basic ${REDACTED}`], short: 'Bearer x' });
    expect(redactSecrets('Bearer abcdefghijkl')).toBe(`Bearer ${REDACTED}`);
  });

  it.each([
    ['max_tokens', 256],
    ['token_count', 12],
    ['use_cookies', true],
    ['passage', 'It was a dark and stormy night.'],
    ['bypass', 'cache'],
    ['compass', 'north'],
    ['secretary', 'Ann'],
    ['tokenizer', 'bpe'],
    ['author', 'Ann'],
    ['keyboard', 'qwerty'],
    ['pwd', '/home/ann'],
    ['auth_method', 'basic'],
    ['password', ''],
    ['token', null],
  ])('leaves %s: %j alone', (key, value) => {
    expect(redactSecrets({ [key]: value })).toEqual({ [key]: value });
  });

  it('keeps an own "__proto__" key as data and never sets a prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true, "token": "t"}, "a": 1}') as Record<string, unknown>;
    const output = redactSecrets(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ polluted: true, token: REDACTED });
    expect((output as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('does not change its input', () => {
    const input = { password: 'p', nested: { token: 't', list: ['Bearer abcdefghijkl'] } };
    const copy = structuredClone(input);
    redactSecrets(input);
    expect(input).toEqual(copy);
  });

  it('records values as JSON would send them: a Date as its ISO string', () => {
    const at = new Date('2026-05-06T07:08:09.000Z');
    expect(redactSecrets({ at, list: [at] })).toEqual({ at: '2026-05-06T07:08:09.000Z', list: ['2026-05-06T07:08:09.000Z'] });
  });

  it('passes numbers, booleans and null through', () => {
    expect(redactSecrets([1, true, null, 'x'])).toEqual([1, true, null, 'x']);
  });

  it('cuts off absurdly deep values instead of overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => redactSecrets(deep)).not.toThrow();
  });
});

describe('nestingDepth', () => {
  it.each([
    ['a scalar', '42', 0],
    ['an empty object', '{}', 1],
    ['objects and arrays', '{"a":[1,{"b":[2]}]}', 4],
    ['brackets inside a string', '{"a":"[[[{{{"}', 1],
    ['an escaped quote inside a string', '{"a":"x\\"[[[["}', 1],
    ['an escaped backslash before the closing quote', '["\\\\",[1]]', 2],
    ['siblings that are not nested', '[[1],[2],[3]]', 2],
  ])('counts %s', (_what, text, depth) => {
    expect(nestingDepth(text)).toBe(depth);
  });
});

describe('parseUntrustedJson', () => {
  function refusal(text: string, maxDepth = 64): GatewayError {
    let error: unknown;
    try {
      parseUntrustedJson(text, maxDepth);
    } catch (caught) {
      error = caught;
    }
    expect(error, `${text} was accepted`).toBeInstanceOf(GatewayError);
    const gatewayError = error as GatewayError;
    expect(gatewayError.errorName).toBe('INVALID_JSON');
    expect(gatewayError.status).toBe(400);
    return gatewayError;
  }

  it('parses plain valid JSON', () => {
    expect(parseUntrustedJson('{"a":[1,"two",{"b":null}],"c":"__proto__ as a value is fine"}', 64)).toEqual({
      a: [1, 'two', { b: null }],
      c: '__proto__ as a value is fine',
    });
  });

  it('accepts a document exactly at the depth limit and refuses one level more', () => {
    expect(parseUntrustedJson('[[[1]]]', 3)).toEqual([[[1]]]);
    expect(refusal('[[[1]]]', 2).message).toBe('The request body is nested 3 levels deep; at most 2 are accepted.');
  });

  it('refuses a 100 000-deep document before parsing it', () => {
    expect(refusal(`${'['.repeat(100_000)}${']'.repeat(100_000)}`).message).toContain('100000 levels deep');
  });

  it('does not count brackets inside strings towards the depth', () => {
    expect(parseUntrustedJson('{"a":"[[[[[[[[[["}', 2)).toEqual({ a: '[[[[[[[[[[' });
  });

  it.each([
    ['a top-level __proto__', '{"__proto__": {"polluted": true}}'],
    ['a nested __proto__', '{"a": {"b": [{"__proto__": {"polluted": true}}]}}'],
    ['an escaped \\u005f_proto__', '{"\\u005f_proto__": {"polluted": true}}'],
    ['a fully escaped __proto__', '{"\\u005f\\u005fproto\\u005f\\u005f": {"polluted": true}}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}'],
  ])('refuses %s', (_what, text) => {
    expect(refusal(text).message).toContain('"__proto__" or "constructor.prototype"');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('accepts a "constructor" key without a prototype', () => {
    expect(parseUntrustedJson('{"constructor": {"name": "x"}}', 64)).toEqual({ constructor: { name: 'x' } });
  });

  it('says what is wrong with invalid JSON', () => {
    expect(refusal('{"a": }').message).toMatch(/^The request body is not valid JSON: /);
    expect(refusal('', 64).message).toMatch(/not valid JSON/);
  });

  it('reports invalid JSON that merely mentions "prototype" as invalid JSON, not as a prototype key', () => {
    expect(refusal('{"prototype": }').message).toMatch(/not valid JSON/);
    expect(refusal('prototype').message).toMatch(/not valid JSON/);
  });

  it('does not quote the offending text back (it may hold a secret)', () => {
    expect(refusal('{"password": hunter2}').message).not.toContain('hunter2');
  });
});

describe('ResultCache', () => {
  it('evicts the least recently used entry first', () => {
    const cache = new ResultCache(3);
    cache.set('a', 1, 60_000, 0);
    cache.set('b', 2, 60_000, 0);
    cache.set('c', 3, 60_000, 0);
    expect(cache.get('a', 1)).toEqual({ value: 1 }); // a is now the most recently used
    cache.set('d', 4, 60_000, 2); // evicts b
    expect(cache.get('b', 3)).toBeUndefined();
    cache.set('e', 5, 60_000, 4); // evicts c
    expect(cache.get('c', 5)).toBeUndefined();
    expect(cache.get('a', 6)).toEqual({ value: 1 });
    expect(cache.get('d', 6)).toEqual({ value: 4 });
    expect(cache.get('e', 6)).toEqual({ value: 5 });
    expect(cache.stats()).toMatchObject({ size: 3, evictions: 2 });
  });

  it('overwriting a key refreshes it instead of adding an entry', () => {
    const cache = new ResultCache(2);
    cache.set('a', 1, 60_000, 0);
    cache.set('b', 2, 60_000, 0);
    cache.set('a', 10, 60_000, 1);
    cache.set('c', 3, 60_000, 2); // evicts b, the least recently set
    expect(cache.get('a', 3)).toEqual({ value: 10 });
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ size: 2, evictions: 1 });
  });

  it('expires an entry at its TTL, using the injected clock', () => {
    const cache = new ResultCache();
    cache.set('k', 'v', 1000, 5000);
    expect(cache.get('k', 5999)).toEqual({ value: 'v' });
    expect(cache.get('k', 6000)).toBeUndefined();
    expect(cache.get('k', 6001)).toBeUndefined(); // gone, not expired twice
    expect(cache.stats()).toMatchObject({ size: 0, hits: 1, misses: 2, expirations: 1 });
  });

  it('counts hits, misses, evictions and expirations and derives the hit rate', () => {
    const cache = new ResultCache(1);
    expect(cache.stats()).toEqual({ size: 0, max_entries: 1, hits: 0, misses: 0, hit_rate: null, evictions: 0, expirations: 0 });
    cache.get('missing', 0);
    cache.set('a', 1, 100, 0);
    cache.get('a', 1);
    cache.get('a', 2);
    cache.set('b', 2, 100, 3); // evicts a
    cache.get('b', 500); // expired
    expect(cache.stats()).toEqual({ size: 0, max_entries: 1, hits: 2, misses: 2, hit_rate: 0.5, evictions: 1, expirations: 1 });
  });

  it('caches falsy results', () => {
    const cache = new ResultCache();
    cache.set('zero', 0, 1000, 0);
    cache.set('null', null, 1000, 0);
    expect(cache.get('zero', 1)).toEqual({ value: 0 });
    expect(cache.get('null', 1)).toEqual({ value: null });
  });

  it('clears one tool without touching tools whose names share its prefix', () => {
    const cache = new ResultCache();
    const keys = [callKey('calc', { x: 1 }), callKey('calc', { x: 2 }), callKey('calc2', { x: 1 }), callKey('other', {})];
    for (const key of keys) cache.set(key, key, 60_000, 0);
    cache.clear('calc');
    expect(keys.map((key) => cache.get(key, 1) !== undefined)).toEqual([false, false, true, true]);
    cache.clear();
    expect(cache.stats().size).toBe(0);
  });

  it('derives the same key for the same arguments in any key order, at any depth', () => {
    const a = callKey('t', { b: 1, a: { y: [1, { q: 1, p: 2 }], x: null } });
    const b = callKey('t', { a: { x: null, y: [1, { p: 2, q: 1 }] }, b: 1 });
    expect(a).toBe(b);
  });

  it('derives different keys for different tools, values or array orders', () => {
    const base = callKey('t', { a: [1, 2] });
    expect(callKey('u', { a: [1, 2] })).not.toBe(base);
    expect(callKey('t', { a: [2, 1] })).not.toBe(base);
    expect(callKey('t', { a: [1, '2'] })).not.toBe(base);
    expect(callKey('t', { a: [1, 2], b: 0 })).not.toBe(base);
  });
});

describe('secrets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pincer-secrets-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const mode = (file: string) => statSync(file).mode & 0o777;

  it.skipIf(process.platform === 'win32')('creates a missing secret file with mode 0600', () => {
    const file = join(dir, 'token');
    expect(loadOrCreateSecret(file, () => 'generated-secret')).toBe('generated-secret');
    expect(readFileSync(file, 'utf8')).toBe('generated-secret\n');
    expect(mode(file)).toBe(0o600);
  });

  it('returns the same value on the second call without generating again', () => {
    const file = join(dir, 'token');
    let generated = 0;
    const generate = () => `secret-${++generated}`;
    expect(loadOrCreateSecret(file, generate)).toBe('secret-1');
    expect(loadOrCreateSecret(file, generate)).toBe('secret-1');
    expect(generated).toBe(1);
  });

  it.skipIf(process.platform === 'win32')('tightens a file others can read (0644) to 0600 and keeps its value', () => {
    const file = join(dir, 'owner-secret');
    writeFileSync(file, '  existing-secret \n', { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(loadOrCreateSecret(file, () => 'unused')).toBe('existing-secret');
    expect(mode(file)).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')('never returns an empty secret from an empty file: it writes a new one', () => {
    const file = join(dir, 'owner-secret');
    writeFileSync(file, '\n', { mode: 0o644 });
    expect(loadOrCreateSecret(file, () => 'fresh-secret')).toBe('fresh-secret');
    expect(readFileSync(file, 'utf8')).toBe('fresh-secret\n');
    expect(mode(file)).toBe(0o600);
    expect(loadOrCreateSecret(file, () => 'other')).toBe('fresh-secret');
  });

  it.skipIf(process.platform === 'win32')('makes the data directory private (0700)', () => {
    const dataDir = join(dir, 'data');
    ensurePrivateDir(dataDir);
    expect(existsSync(dataDir)).toBe(true);
    expect(mode(dataDir)).toBe(0o700);
  });

  it('generates distinct URL-safe tokens of 256 bits', () => {
    const a = generateToken();
    const b = generateToken();
    expect(a).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });
});

import { describe, expect, it } from 'vitest';
import { RegistryError, ToolRegistry, type RegistryEvents } from '../../../server/tools/registry.js';
import type { AnyTool } from '../../../server/tools/types.js';

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

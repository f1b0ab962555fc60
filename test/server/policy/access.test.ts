import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus, type GatewayEvents } from '../../../server/events/bus.js';
import { ClientAccess } from '../../../server/policy/access.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { createSearchToolsTool, SEARCH_TOOLS } from '../../../server/tools/builtin/search-tools.js';
import { ToolRegistry } from '../../../server/tools/registry.js';
import type { AnyTool } from '../../../server/tools/types.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * Who may use which tool, on a real store: the pause switch, each client's own set, and the budget on what its
 * lists carry (pinned tools, search_tools, and what search_tools found for it).
 */

const HOUR = 60 * 60_000;
const T0 = Date.parse('2026-12-01T12:00:00Z');

let dir: string;
let store: Store;
let bus: EventBus;
let announced: GatewayEvents['tools'][0][];
let registry: ToolRegistry;

beforeEach(() => {
  dir = tempDir('pincer-access-');
  store = openStore(join(dir, 'pincer.db'));
  bus = new EventBus();
  announced = [];
  bus.on('tools', (event) => announced.push(event));
  registry = new ToolRegistry();
  registry.register(createSearchToolsTool(() => []));
  for (const name of ['calc', 'calc2', 'clock', 'files', 'shell', 'web']) registry.register(tool(name));
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function tool(name: string): AnyTool {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    category: 'test',
    risk: 'safe',
    annotations: { readOnlyHint: true },
    handler: () => null,
  };
}

const access = () => new ClientAccess(store, bus);
const names = (tools: { definition: { name: string } }[]) => tools.map((t) => t.definition.name);

describe('the pause switch', () => {
  it('refuses every call while paused, the owner and search_tools included, and is kept across a restart', () => {
    const a = access();
    a.setPaused(true);
    for (const [client, name, owner] of [['cursor', 'calc', false], ['owner', 'calc', true], ['cursor', SEARCH_TOOLS, false]] as const) {
      const refused = a.refusal(client, name, owner);
      expect(refused?.errorName, `${client} ${name}`).toBe('TOOLS_PAUSED');
      expect(refused?.status).toBe(409);
    }
    expect(access().paused).toBe(true);
    access().setPaused(false);
    expect(access().refusal('cursor', 'calc', false)).toBeUndefined();
  });
});

describe("a client's own set of tools", () => {
  it('refuses a tool outside the set by its exact name: a name sharing a prefix is another tool', () => {
    const a = access();
    a.setTools('cursor', ['calc']);
    expect(a.refusal('cursor', 'calc', false)).toBeUndefined();
    for (const other of ['calc2', 'cal', 'Calc', 'clock']) {
      const refused = a.refusal('cursor', other, false);
      expect(refused?.errorName, other).toBe('TOOL_DISABLED');
      expect(refused?.status).toBe(409);
    }
  });

  it('limits only its own client: the owner and other clients are not bound by it', () => {
    const a = access();
    a.setTools('cursor', ['calc']);
    expect(a.refusal('owner', 'shell', true)).toBeUndefined();
    expect(a.refusal('claude', 'shell', false)).toBeUndefined();
  });

  it('always lets a client call search_tools, which shows only its own tools', () => {
    const a = access();
    a.setTools('cursor', ['calc']);
    expect(a.refusal('cursor', SEARCH_TOOLS, false)).toBeUndefined();
  });

  it("lists the enabled tools of the client's set; a tool the owner turned off is in nobody's", () => {
    const a = access();
    a.setTools('cursor', ['calc', 'web', 'not-registered']);
    registry.setEnabled('web', false);
    expect(names(a.usable(registry, 'cursor', false))).toEqual(['calc']);
    expect(names(a.usable(registry, 'owner', true))).not.toContain('web');
    expect(names(a.usable(registry, 'claude', false))).toEqual([SEARCH_TOOLS, 'calc', 'calc2', 'clock', 'files', 'shell']);
  });

  it('keeps the set and the budget apart, stores both, and announces each change', () => {
    const a = access();
    expect(a.hasProfile('cursor')).toBe(false);
    a.setTools('cursor', ['calc', 'web']);
    a.setBudget('cursor', 3, ['web']);
    expect(a.profile('cursor')).toEqual({ name: 'cursor', tools: ['calc', 'web'], max_tools: 3, pinned: ['web'] });
    expect(access().profile('cursor')).toEqual({ name: 'cursor', tools: ['calc', 'web'], max_tools: 3, pinned: ['web'] });
    expect(access().hasProfile('cursor')).toBe(true);
    expect(announced.map((e) => e.reason)).toEqual(['client:cursor', 'client:cursor']);
  });
});

describe('the budget on what a client is listed', () => {
  it('lists the whole set when it fits the budget', () => {
    const a = access();
    a.setBudget('cursor', 7, []);
    expect(a.visible(registry, 'cursor', false, T0)).toEqual({ tools: registry.list(), deferred: [] });
  });

  it('over the budget, lists search_tools and the pinned tools, and defers the rest with a warning', () => {
    const a = access();
    a.setBudget('cursor', 3, ['web', 'clock']);
    const listed = a.visible(registry, 'cursor', false, T0);
    expect(names(listed.tools)).toEqual([SEARCH_TOOLS, 'clock', 'web']);
    expect(names(listed.deferred)).toEqual(['calc', 'calc2', 'files', 'shell']);
    expect(listed.warning).toContain('cursor may use 7 tools; its budget lists 3');
  });

  it('never lists more pinned tools than the budget', () => {
    const a = access();
    a.setBudget('cursor', 2, ['web', 'clock', 'files']);
    expect(names(a.visible(registry, 'cursor', false, T0).tools)).toEqual([SEARCH_TOOLS, 'web']);
  });

  it('gives a client on a budget search_tools even when its own set leaves it out', () => {
    const a = access();
    a.setTools('cursor', ['calc', 'calc2', 'clock']);
    a.setBudget('cursor', 1, []);
    expect(names(a.visible(registry, 'cursor', false, T0).tools)).toEqual([SEARCH_TOOLS]);
    registry.setEnabled(SEARCH_TOOLS, false);
    expect(names(a.visible(registry, 'cursor', false, T0).tools)).toEqual([]);
  });

  it('never applies to the owner', () => {
    const a = access();
    a.setBudget('owner', 1, []);
    expect(a.visible(registry, 'owner', true, T0).tools).toHaveLength(7);
  });

  it('lists what search_tools found for the client for an hour, beyond the budget, and only for that client', () => {
    const a = access();
    a.setBudget('cursor', 1, []);
    a.setBudget('claude', 1, []);
    a.noteFound('cursor', ['shell', 'files'], T0);
    expect(names(a.visible(registry, 'cursor', false, T0).tools)).toEqual([SEARCH_TOOLS, 'files', 'shell']);
    expect(names(a.visible(registry, 'claude', false, T0).tools)).toEqual([SEARCH_TOOLS]);
    expect(a.foundFor('cursor', T0 + HOUR - 1)).toEqual(['files', 'shell']);
    expect(a.foundFor('cursor', T0 + HOUR)).toEqual([]);
    expect(names(a.visible(registry, 'cursor', false, T0 + HOUR).tools)).toEqual([SEARCH_TOOLS]);
  });

  it('never lists a found tool that is outside the client set', () => {
    const a = access();
    a.setTools('cursor', ['calc', 'calc2', 'clock']);
    a.setBudget('cursor', 1, []);
    a.noteFound('cursor', ['shell'], T0);
    expect(names(a.visible(registry, 'cursor', false, T0).tools)).toEqual([SEARCH_TOOLS]);
  });

  it('keeps the 64 latest finds per client', () => {
    const a = access();
    a.noteFound('cursor', Array.from({ length: 70 }, (_, i) => `t${i}`), T0);
    const kept = a.foundFor('cursor', T0);
    expect(kept).toHaveLength(64);
    // The best of one search is kept last, and the tail of the list is what goes first.
    expect(kept.at(-1)).toBe('t0');
    expect(kept).not.toContain('t69');
  });

  it('announces a find only for a client on a budget, and only when something new was found', () => {
    const a = access();
    a.noteFound('claude', ['shell'], T0);
    expect(announced).toEqual([]);
    a.setBudget('cursor', 1, []);
    announced.length = 0;
    a.noteFound('cursor', ['shell'], T0);
    a.noteFound('cursor', ['shell'], T0 + 1);
    a.noteFound('cursor', [], T0 + 2);
    expect(announced).toEqual([{ reason: 'client:cursor', names: [] }]);
  });
});

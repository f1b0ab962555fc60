import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allow, ask, deny, type Subject } from '../../../server/decision.js';
import { PolicyEngine } from '../../../server/policy/engine.js';
import { RiskPolicy, type Analyzer } from '../../../server/policy/policy.js';
import { FileProvenance } from '../../../server/policy/provenance.js';
import { RuleBook } from '../../../server/policy/rules.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { ToolRegistry, type RegisteredTool } from '../../../server/tools/registry.js';
import type { AnyTool } from '../../../server/tools/types.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * The policy engine with real analyzers' shape, a real rule book and file provenance on a real store: which judge
 * decides which call, and in what order.
 */

let dir: string;
let store: Store;
let registry: ToolRegistry;
let now: number;

beforeEach(() => {
  dir = tempDir('pincer-engine-');
  store = openStore(join(dir, 'pincer.db'));
  registry = new ToolRegistry();
  now = Date.parse('2026-12-01T12:00:00Z');
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function register(name: string, risk: AnyTool['risk'], source = 'builtin', into = registry): RegisteredTool {
  return into.register(
    {
      name,
      description: `The ${name} tool.`,
      parameters: { type: 'object', properties: {}, additionalProperties: true },
      category: 'test',
      risk,
      annotations: {},
      handler: () => null,
    },
    source,
  );
}

/** An analyzer that says `decision` and records the arguments it was shown. */
function analyzer(decision: ReturnType<typeof allow>, seen: unknown[] = []): Analyzer {
  return (args) => {
    seen.push(args);
    return decision;
  };
}

const input = (tool: RegisteredTool, args: Record<string, unknown> = {}) => ({ tool, arguments: args, client: 'cursor' });

describe('the baseline: declared risk', () => {
  it.each([
    ['safe', 'allow', 'risk:safe'],
    ['sensitive', 'ask', 'risk:sensitive'],
    ['dangerous', 'ask', 'risk:dangerous'],
  ] as const)('decides a %s tool without an analyzer: %s', async (risk, decision, rule) => {
    const tool = register('t', risk);
    expect(await new PolicyEngine({}).decide(input(tool))).toMatchObject({ decision, rule });
    expect(new RiskPolicy().decide(input(tool))).toMatchObject({ decision, rule });
  });
});

describe('analyzers', () => {
  it("judge a built-in tool by this call's arguments, not its declared risk", async () => {
    const seen: unknown[] = [];
    const tool = register('run_shell', 'dangerous');
    const engine = new PolicyEngine({ run_shell: analyzer(allow('shell:read-only', 'Only reads.'), seen) });
    expect(await engine.decide(input(tool, { command: 'ls' }))).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
    expect(seen).toEqual([{ command: 'ls' }]);
  });

  it("never judge a plugin's or an imported server's tool that takes a built-in's name", async () => {
    const seen: unknown[] = [];
    const engine = new PolicyEngine({ run_shell: analyzer(allow('shell:read-only', 'Only reads.'), seen) });
    for (const source of ['plugin:lookalike', 'mcp:lookalike']) {
      const tool = register('run_shell', 'dangerous', source, new ToolRegistry());
      expect(await engine.decide(input(tool, { command: 'ls' }))).toMatchObject({ decision: 'ask', rule: 'risk:dangerous' });
    }
    expect(seen).toEqual([]);
  });

  it('accept an analyzer that answers later (one that resolves paths or names)', async () => {
    const tool = register('http_request', 'sensitive');
    const engine = new PolicyEngine({ http_request: async () => deny('net:private-address', 'A private address.') });
    expect(await engine.decide(input(tool))).toMatchObject({ decision: 'deny', rule: 'net:private-address' });
  });
});

describe("the owner's rules on top", () => {
  it("apply after the analyzer: an allow rule answers the analyzer's question, keeping what the call touches", async () => {
    const rules = new RuleBook(store);
    const made = rules.add({ effect: 'allow', tool: 'file_write', scope: 'folder', pattern: '/p/src' }, 'owner');
    const tool = register('file_write', 'sensitive');
    const subject: Subject = { path: '/p/src/a.ts' };
    const engine = new PolicyEngine({ file_write: analyzer({ ...ask('path:write', 'Writes a file.'), subject }) }, rules);
    expect(await engine.decide(input(tool))).toEqual(expect.objectContaining({ decision: 'allow', rule: `rule:${made.id}`, subject }));
  });

  it('deny a call the analyzer allows when a deny rule says so', async () => {
    const rules = new RuleBook(store);
    rules.add({ effect: 'deny', tool: '*', scope: 'tool' }, 'owner');
    const tool = register('get_time', 'safe');
    expect((await new PolicyEngine({}, rules).decide(input(tool))).decision).toBe('deny');
  });
});

describe('files a client wrote', () => {
  it('turn an allowed command that runs them into a question, and a rule made before the write does not answer it', async () => {
    const provenance = new FileProvenance(store, { now: () => now });
    const rules = new RuleBook(store);
    rules.add({ effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'make' }, 'owner', now - 60_000);
    provenance.noteRan(
      { id: 'c_1', tool: 'file_write', client: 'cursor', arguments: { path: 'Makefile' }, status: 'succeeded', result: { root: '/p', path: 'Makefile' }, error: null },
      'builtin',
      false,
      undefined,
    );
    const tool = register('run_shell', 'dangerous');
    const subject: Subject = { command: 'make', path: '/p', runs: [{ path: '/p/Makefile', by: 'make' }] };
    const engine = new PolicyEngine({ run_shell: analyzer({ ...allow('shell:builds', 'Builds.'), subject }) }, rules, provenance);
    const decided = await engine.decide(input(tool, { command: 'make' }));
    expect(decided).toMatchObject({ decision: 'ask', rule: 'provenance:client-written' });
    expect(decided.subject?.provenance?.map((p) => p.client)).toEqual(['cursor']);
  });

  it('leave a command alone when nobody wrote what it runs', async () => {
    const provenance = new FileProvenance(store, { now: () => now });
    const tool = register('run_shell', 'dangerous');
    const subject: Subject = { command: 'make', path: '/p', runs: [{ path: '/p/Makefile', by: 'make' }] };
    const engine = new PolicyEngine({ run_shell: analyzer({ ...allow('shell:builds', 'Builds.'), subject }) }, undefined, provenance);
    expect(await engine.decide(input(tool))).toMatchObject({ decision: 'allow', rule: 'shell:builds' });
  });
});

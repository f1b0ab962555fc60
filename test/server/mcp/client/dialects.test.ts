import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * An imported server's schemas in every dialect, through the real HTTP API: draft-04, 2019-09 and 2020-12 tools
 * register and are enforced as their dialect means, an output schema in 2020-12 checks results, and a tool whose
 * schema names an unknown dialect or refers outside itself is invalid with the reason in the MCP servers view.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SERVER = resolve(import.meta.dirname, '../fixtures/dialects-server.mjs');
const REDOCLY = resolve(import.meta.dirname, '../../../../node_modules/.bin/redocly');
let tg: TestGateway;
let view: Json;

const tool = (name: string): Json => view.tools.find((t: Json) => t.name === name);
const execute = async (name: string, args: unknown) => (await tg.api(`/tools/dialects__${name}/execute`, { method: 'POST', json: args })).json() as Promise<Json>;

beforeAll(async () => {
  tg = await startGateway({ mcpServers: { dialects: { command: process.execPath, args: [SERVER] } } });
  view = await until(async () => {
    const current = (await (await tg.api('/mcp-servers/dialects')).json()) as Json;
    return current.status === 'running' && current.tools.length > 0 && current;
  }, 'the dialects server running', 30_000);
  const accepted = await tg.asOwner('/mcp-servers/dialects/accept', { json: { tools: ['percent', 'outline', 'tree', 'lying'], risk: 'safe' } });
  expect(accepted.status).toBe(200);
});
afterAll(async () => {
  await tg?.close();
});

describe('an imported server with schemas in several dialects', () => {
  it('registers its draft-04, 2019-09, 2020-12 and draft-07 tools', () => {
    for (const name of ['percent', 'outline', 'tree', 'lying']) expect(tool(name), name).toMatchObject({ status: 'active', problem: null });
  });

  it('enforces draft-04 boolean exclusive bounds', async () => {
    expect(await execute('percent', { share: 50 })).toMatchObject({ success: true, result: '50%' });
    for (const share of [0, 100]) {
      expect((await execute('percent', { share })).error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('"share" must be') });
    }
  });

  it("follows 2019-09's $recursiveRef and 2020-12's recursive $ref to any depth", async () => {
    expect(await execute('outline', { title: 'a', sections: [{ title: 'b', sections: [{ title: 'c' }] }] })).toMatchObject({ success: true });
    expect((await execute('outline', { title: 'a', sections: [{ sections: [] }] })).error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('missing required property "title"') });
    expect(await execute('tree', { root: { name: 'a', children: [{ name: 'b' }, { name: 'c', children: [{ name: 'd' }] }] } })).toMatchObject({ success: true, result: { structuredContent: { nodes: 4 } } });
    const deep = await execute('tree', { root: { name: 'a', children: [{ name: 'b', children: [{ name: 7 }] }] } });
    expect(deep.error).toMatchObject({ name: 'INVALID_ARGUMENTS', details: { errors: [expect.objectContaining({ path: '/root/children/0/children/0/name' })] } });
  });

  it('checks a result against a draft-07 output schema and refuses one that does not match', async () => {
    const lying = await execute('lying', {});
    expect(lying.success).toBe(false);
    expect(lying.error.message).toMatch(/lying.*(structured content|does not match)/i);
  });

  it('marks a tool whose $schema names an unknown dialect invalid, naming it and the known ones', () => {
    expect(tool('future')).toMatchObject({ status: 'invalid', problem: expect.stringContaining('"https://json-schema.org/draft/2031-01/schema"') });
    expect(tool('future').problem).toMatch(/draft-04, draft-07, 2019-09, 2020-12/);
  });

  it('marks a tool whose $ref points at another host invalid, and never fetches it', async () => {
    expect(tool('elsewhere')).toMatchObject({ status: 'invalid', problem: expect.stringMatching(/"https:\/\/schemas\.example\/config\.json".*points outside the schema/) });
    expect((await tg.api('/tools/dialects__elsewhere')).status).toBe(404);
  });

  it('publishes them in /openapi.json in 2020-12, $defs as components, and the document passes @redocly/cli lint', async () => {
    const document = (await (await tg.api('/openapi.json')).json()) as Json;
    const body = (name: string) => document.paths[`/tools/dialects__${name}/execute`].post.requestBody.content['application/json'].schema;
    expect(body('percent').properties.share).toEqual({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 100 });
    expect(body('tree').properties.root).toEqual({ $ref: '#/components/schemas/dialects__tree.node' });
    expect(document.components.schemas['dialects__tree.node'].properties.children.items).toEqual({ $ref: '#/components/schemas/dialects__tree.node' });
    for (const name of ['percent', 'outline', 'tree', 'lying']) expect(JSON.stringify(body(name)), name).not.toMatch(/"\$schema"|"\$recursiveRef"|"definitions"/);
    const dir = tempDir();
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const { stdout } = await promisify(execFile)(REDOCLY, ['lint', file, '--format', 'json'], {
        env: { ...process.env, HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 60_000,
      });
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number }; problems: { severity: string }[] };
      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

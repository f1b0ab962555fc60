import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/**
 * Real MCP clients other than the SDK against a real gateway: the MCP Inspector CLI (pinned, a root devDependency)
 * lists and calls tools. It cannot send a token: the gateway runs without client auth, on loopback, with its Host
 * and Origin checks on. The official conformance suite runs in conformance.test.ts.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const INSPECTOR = resolve(ROOT, 'node_modules/.bin/mcp-inspector');
const run = promisify(execFile);

let tg: TestGateway;
const home = tempDir('pincer-mcp-home-');

beforeAll(async () => {
  tg = await startGateway({ clientAuth: false });
});
afterAll(async () => {
  await tg?.close();
  rmSync(home, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function inspector(...args: string[]): Promise<any> {
  // The Inspector writes ~/.mcp-inspector: a throwaway HOME.
  const { stdout } = await run(INSPECTOR, ['--cli', `${tg.url}/mcp`, '--transport', 'http', ...args, '--format', 'json'], {
    env: { ...process.env, HOME: home },
    timeout: 90_000,
  });
  return JSON.parse(stdout);
}

describe('MCP Inspector CLI', () => {
  it('lists the tools', async () => {
    const answer = await inspector('--method', 'tools/list');
    const names = (answer.result.tools as { name: string; inputSchema: { type: string } }[]).map((t) => t.name);
    expect(names).toContain('calculate');
    expect(answer.result.tools.every((t: { inputSchema: { type: string } }) => t.inputSchema.type === 'object')).toBe(true);
  }, 120_000);

  it('lists them under --strict (schema portability: no errors, no warnings)', async () => {
    const answer = await inspector('--method', 'tools/list', '--strict');
    expect(answer.result.tools.length).toBeGreaterThan(0);
    const findings = ((answer.schemaFindings ?? []) as { tool: string; findings: { severity: string }[] }[]).flatMap((t) => t.findings.map((f) => ({ tool: t.tool, ...f })));
    expect(findings).toEqual([]);
  }, 120_000);

  it('calls a tool', async () => {
    const answer = await inspector('--method', 'tools/call', '--tool-name', 'calculate', '--tool-arg', 'expression=6*7');
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.structuredContent).toMatchObject({ result: 42 });
  }, 120_000);

  it('sees a refusal as an isError result', async () => {
    // The Inspector exits non-zero on an isError result and says so.
    const failure = (await inspector('--method', 'tools/call', '--tool-name', 'file_read', '--tool-arg', 'path=/etc/shadow').catch(
      (error: { stdout?: string; stderr?: string }) => error,
    )) as { stdout?: string; stderr?: string };
    expect(`${failure.stdout ?? ''}${failure.stderr ?? ''}`).toMatch(/"code":\s*"tool_is_error"/);
  }, 120_000);
});

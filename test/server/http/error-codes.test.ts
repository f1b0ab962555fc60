import { createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, type ErrorName } from '../../../server/errors.js';
import { loadConfig } from '../../../server/index.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { startWithStub, type LlmSetup } from '../llm/gateway-with-llm.js';

/** A port on 127.0.0.1 that nothing listens on: connecting to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The answer's status, name and code, checked against each other through the catalogue as well. */
async function refusal(res: Response): Promise<{ status: number; name: ErrorName; code: number }> {
  const body = await readJson(res);
  expect(body.success).toBe(false);
  const { name, code } = body.error as { name: ErrorName; code: number };
  expect(ERRORS[name], `${name} is catalogued`).toBeDefined();
  expect({ status: res.status, code }).toEqual({ status: ERRORS[name].status, code: ERRORS[name].code });
  return { status: res.status, name, code };
}

describe('refusals answer with their own name, code and HTTP status', () => {
  let tg: TestGateway;
  let dataDir: string;
  let workspace: string;

  beforeAll(async () => {
    dataDir = tempDir();
    workspace = tempDir('pincer-root-');
    // The roots come from the environment, so the dashboard cannot change them; the LLM server is not running.
    const config = loadConfig({
      flags: { dataDir, port: 0, host: '127.0.0.1' },
      env: { PINCER_ROOTS: workspace, PINCER_LLM_BASE_URL: `http://127.0.0.1:${await closedPort()}`, PINCER_LLM_MODEL: 'any-model' },
      cwd: workspace,
    });
    tg = await startGateway(config, { llm: { upstream: { retries: 0, backoffMs: 1, idleTimeoutMs: 5_000 } } });
  });
  afterAll(async () => {
    await tg.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('an unknown conversation is 404 CONVERSATION_NOT_FOUND (631), read or continued', async () => {
    expect(await refusal(await tg.api('/chat/conversations/cv_nope'))).toEqual({ status: 404, name: 'CONVERSATION_NOT_FOUND', code: 631 });
    const continued = await tg.api('/chat', { method: 'POST', json: { message: 'hi', conversation_id: 'cv_nope' } });
    expect(await refusal(continued)).toEqual({ status: 404, name: 'CONVERSATION_NOT_FOUND', code: 631 });
  });

  it('an LLM server that is not running is 502 LLM_UNAVAILABLE (640)', async () => {
    const res = await tg.api('/chat', { method: 'POST', json: { message: 'hi' } });
    expect(await refusal(res)).toEqual({ status: 502, name: 'LLM_UNAVAILABLE', code: 640 });
  });

  it('a setting fixed by the environment is 409 SETTING_LOCKED (632)', async () => {
    const res = await tg.asOwner('/settings', { method: 'PATCH', json: { roots: [dataDir] } });
    expect(await refusal(res)).toEqual({ status: 409, name: 'SETTING_LOCKED', code: 632 });
  });

  it("keeps Lobster's codes and the codes that were the HTTP status", async () => {
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) => tg.api(path, { method: 'POST', json, headers });
    expect(await refusal(await post('/tools/no_such_tool/execute', {}))).toEqual({ status: 404, name: 'TOOL_NOT_FOUND', code: 600 });
    expect(await refusal(await post('/tools/calculate/execute', { expression: 42 }))).toEqual({ status: 400, name: 'INVALID_ARGUMENTS', code: 602 });
    expect(await refusal(await tg.api('/no/such/route'))).toEqual({ status: 404, name: 'NOT_FOUND', code: 404 });
    const text = await tg.api('/tools/calculate/execute', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(await refusal(text)).toEqual({ status: 415, name: 'UNSUPPORTED_MEDIA_TYPE', code: 415 });
    expect(await refusal(await tg.api('/tools', { headers: { authorization: '' } }))).toEqual({ status: 401, name: 'AUTH_MISSING', code: 401 });
    expect(await refusal(await post('/rules', { tool: 'calculate', decision: 'allow' }))).toEqual({ status: 403, name: 'FORBIDDEN', code: 403 });
  });

  it('gives names that once shared a code codes of their own', async () => {
    const json = await tg.api('/tools/calculate/execute', { method: 'POST', body: '{"expression":', headers: { 'content-type': 'application/json' } });
    expect(await refusal(json)).toEqual({ status: 400, name: 'INVALID_JSON', code: 620 });
    expect(await refusal(await tg.api('/tools', { headers: { authorization: 'Bearer pk_not-a-token' } }))).toEqual({ status: 401, name: 'AUTH_FAILED', code: 621 });
    const origin = await tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: '1' }, headers: { origin: 'http://attacker.example' } });
    expect(await refusal(origin)).toEqual({ status: 403, name: 'ORIGIN_NOT_ALLOWED', code: 623 });
  });

  it('a tool that ran and failed answers 200 with its own code', async () => {
    const res = await tg.api('/tools/file_read/execute', { method: 'POST', json: { path: `${workspace}/missing.txt` } });
    expect(await refusal(res)).toEqual({ status: 200, name: 'FILE_NOT_FOUND', code: 700 });
  });
});

describe('an LLM server that answers an error is told apart by name', () => {
  let setup: LlmSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  it.each([
    [400, 400, 'LLM_ERROR', 645],
    [429, 429, 'LLM_RATE_LIMITED', 646],
    [500, 502, 'LLM_SERVER_ERROR', 647],
  ] as const)('upstream %i is %i %s (%i)', async (upstream, status, name, code) => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    // More failures than the retries: the last one is what the caller hears.
    setup.stub.failNext(3, upstream);
    const res = await setup.tg.api('/chat', { method: 'POST', json: { message: 'hi' } });
    expect(await refusal(res)).toEqual({ status, name, code });
  });
});

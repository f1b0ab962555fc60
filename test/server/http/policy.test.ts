import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

/** POST /policy/check: the decision a call would get, with its rule, and nothing run or recorded. */

describe('POST /policy/check', () => {
  let gw: TestGateway;
  const check = async (json: unknown) => {
    const res = await gw.api('/policy/check', { method: 'POST', json });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const historySize = async () => ((await (await gw.api('/calls?limit=500')).json()) as { calls: unknown[] }).calls.length;

  beforeAll(async () => {
    gw = await startGateway({ approvalTimeoutS: 0.25 });
  });
  afterAll(async () => {
    await gw.close();
  });

  it('answers allow for a safe call, naming the rule and a reason, and records nothing', async () => {
    const before = await historySize();
    const { status, body } = await check({ name: 'calculate', arguments: { expression: '1+1' } });
    expect(status).toBe(200);
    expect(body).toEqual({ decision: 'allow', rule: 'risk:safe', reason: expect.stringMatching(/\S/) });
    expect(await historySize()).toBe(before);
  });

  it('answers ask for reading the clipboard, and allow for writing it', async () => {
    expect((await check({ name: 'clipboard', arguments: { action: 'read' } })).body).toMatchObject({ decision: 'ask', rule: 'clipboard:read' });
    expect((await check({ name: 'clipboard', arguments: { action: 'write', text: 'x' } })).body).toMatchObject({
      decision: 'allow',
      rule: 'clipboard:write',
    });
  });

  it('refuses an unknown tool, a disabled tool and bad arguments exactly as a call would', async () => {
    expect(await check({ name: 'nope', arguments: {} })).toMatchObject({ status: 404, body: { error: { name: 'TOOL_NOT_FOUND' } } });
    expect(await check({ name: 'calculate', arguments: { expression: 1 } })).toMatchObject({
      status: 400,
      body: { error: { name: 'INVALID_ARGUMENTS' } },
    });
    const owner = await gw.ownerHeaders();
    await gw.api('/tools/get_time', { method: 'PATCH', headers: owner, json: { enabled: false } });
    expect(await check({ name: 'get_time', arguments: {} })).toMatchObject({ status: 409, body: { error: { name: 'TOOL_DISABLED' } } });
    await gw.api('/tools/get_time', { method: 'PATCH', headers: owner, json: { enabled: true } });
  });

  it('refuses a body that is not {name, arguments}', async () => {
    expect((await check({ tool: 'calculate' })).status).toBe(400);
    expect((await check({ name: 'calculate', arguments: {}, extra: 1 })).status).toBe(400);
  });

  it('a call the policy says ask about never runs unanswered: it expires, with the rule recorded', async () => {
    const res = await gw.api('/tools/clipboard/execute', { method: 'POST', json: { action: 'read' } });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { name: string; message: string }; call_id: string };
    expect(body.error).toMatchObject({ name: 'APPROVAL_TIMEOUT' });
    expect(body.error.message).toMatch(/did not answer/i);
    const record = (await (await gw.api(`/calls/${body.call_id}`)).json()) as Record<string, unknown>;
    expect(record).toMatchObject({ status: 'denied', decision: 'ask', rule: 'clipboard:read' });
  });
});

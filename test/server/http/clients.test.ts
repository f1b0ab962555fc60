import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/** Real client software reading what the gateway publishes. */

const REDOCLY = resolve(import.meta.dirname, '../../../node_modules/.bin/redocly');

interface StubChat {
  server: Server;
  baseURL: string;
  requests: { tools?: unknown; messages: ChatCompletionMessageParam[] }[];
}

/** An OpenAI-compatible chat endpoint on loopback: the first turn asks for two tools, the second answers. */
async function startStubChat(): Promise<StubChat> {
  const requests: StubChat['requests'] = [];
  const readBody = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return JSON.parse(text) as StubChat['requests'][number];
  };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    requests.push(body);
    const firstTurn = requests.length === 1;
    const message = firstTurn
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'calculate', arguments: '{"expression":"(2+3)*4"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"Asia/Tokyo"}' } },
          ],
        }
      : { role: 'assistant', content: '20, and it is evening in Tokyo.' };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'stub',
        choices: [{ index: 0, message, finish_reason: firstTurn ? 'tool_calls' : 'stop', logprobs: null }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { server, baseURL: `http://127.0.0.1:${port}/v1`, requests };
}

describe('real clients', () => {
  let gw: TestGateway;
  let stub: StubChat;

  beforeAll(async () => {
    gw = await startGateway();
    stub = await startStubChat();
  });
  afterAll(async () => {
    await gw.close();
    await new Promise((r) => stub.server.close(r));
  });

  it('the openai SDK sends /tools/openai as tools, and /tool_calls answers make the next turn', async () => {
    const { tools } = (await (await gw.api('/tools/openai')).json()) as { tools: ChatCompletionTool[] };
    const openai = new OpenAI({ baseURL: stub.baseURL, apiKey: 'not-used', maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is (2+3)*4, and the time in Tokyo?' }];

    const first = await openai.chat.completions.create({ model: 'stub', messages, tools });
    expect(stub.requests[0]!.tools).toEqual(tools);
    const assistant = first.choices[0]!.message;
    expect(assistant.tool_calls).toHaveLength(2);

    const answered = (await (await gw.api('/tool_calls', { method: 'POST', json: { tool_calls: assistant.tool_calls } })).json()) as {
      messages: ChatCompletionMessageParam[];
    };
    messages.push(assistant, ...answered.messages);
    const second = await openai.chat.completions.create({ model: 'stub', messages, tools });
    expect(second.choices[0]!.message.content).toContain('20');

    const sent = stub.requests[1]!.messages;
    expect(sent.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_a', content: expect.any(String) },
      { role: 'tool', tool_call_id: 'call_b', content: expect.any(String) },
    ]);
    const [calc, time] = sent.slice(-2).map((m) => JSON.parse(m.content as string) as { success: boolean; result: Record<string, unknown> });
    expect(calc).toMatchObject({ success: true, result: { result: 20 } });
    expect(time).toMatchObject({ success: true, result: { timezone: 'Asia/Tokyo', utc_offset: '+09:00' } });
  });

  it('/openapi.json passes @redocly/cli lint with no errors', async () => {
    const dir = tempDir();
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, await (await gw.api('/openapi.json')).text());
      const { stdout } = await promisify(execFile)(REDOCLY, ['lint', file, '--format', 'json'], {
        env: { ...process.env, HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 60_000,
      });
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        totals: { errors: number };
        problems: { ruleId: string; severity: string; message: string }[];
      };
      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('/openapi.json has one literal path and operationId per enabled tool', async () => {
    const doc = (await (await gw.api('/openapi.json')).json()) as { openapi: string; paths: Record<string, { post: { operationId: string } }> };
    const { tools } = (await (await gw.api('/tools/openai')).json()) as { tools: { function: { name: string } }[] };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [path, item.post.operationId]))).toEqual(
      Object.fromEntries(tools.map((t) => [`/tools/${t.function.name}/execute`, t.function.name])),
    );
  });
});

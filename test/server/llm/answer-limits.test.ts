import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { readSse } from '../../helpers/sse.js';
import { ANSWER_LIMITS, DEFAULT_UPSTREAM } from '../../../server/llm/http.js';
import { OllamaProvider } from '../../../server/llm/ollama.js';
import { startStubLlm, type StubLlm } from './stub-llm.js';

/**
 * What the LLM server sends is read under caps: a whole answer, one streamed line, a whole stream, an error body. A
 * server that sends more is cut off as soon as the cap is passed (its socket closes long before it is done), the turn
 * fails with LLM_BAD_RESPONSE naming the limit, and the gateway keeps answering and keeps what it stored.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const KiB = 1024;
const MiB = 1024 * KiB;
/** What a stub offers to send; the caps below are far under it, so a gateway that reads it all fails the test. */
const OFFERED = 48 * MiB;
/** Loopback socket buffers take in a few MiB after the gateway stops reading: the stub must stop well before OFFERED. */
const CUT_OFF_BEFORE = 16 * MiB;
const LIMITS = { maxBodyBytes: 1 * MiB, maxStreamBytes: 2 * MiB, maxLineBytes: 256 * KiB };

let stub: StubLlm | undefined;
let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.close();
  await stub?.close();
  tg = undefined;
  stub = undefined;
});

interface Poured {
  sent: number;
  /** The gateway closed the connection before the stub was done. */
  closedEarly: boolean;
  finished: Promise<void>;
}

/**
 * Writes `head`, then `filler` again and again until `max` bytes went out or the client closes the connection;
 * `during` runs once, after the first MiB is out (the gateway is reading the answer by then). Nothing big is allocated.
 */
function pour(status: number, headers: string | Record<string, string>, head: string, filler: Buffer, max: number, during?: () => Promise<void>): { raw: (res: ServerResponse) => Promise<void>; poured: Poured } {
  let finish!: () => void;
  const poured: Poured = { sent: 0, closedEarly: false, finished: new Promise<void>((resolve) => (finish = resolve)) };
  const raw = async (res: ServerResponse) => {
    let closed = false;
    res.once('close', () => (closed = true));
    res.writeHead(status, typeof headers === 'string' ? { 'content-type': headers } : headers);
    res.write(head);
    poured.sent = Buffer.byteLength(head);
    let ran = false;
    while (poured.sent < max && !closed) {
      const flowing = res.write(filler);
      poured.sent += filler.length;
      if (!ran && during && poured.sent > MiB) {
        ran = true;
        await during();
      }
      if (!flowing && !closed) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
      }
    }
    poured.closedEarly = closed;
    if (!closed) res.end();
    finish();
  };
  return { raw, poured };
}

/** `text` repeated to about 64 KiB. */
function filler(text: string): Buffer {
  return Buffer.from(text.repeat(Math.ceil((64 * KiB) / Buffer.byteLength(text))));
}

const ollamaLine = (content: string) => `${JSON.stringify({ model: 'stub-model', created_at: '2026-11-30T10:00:00Z', message: { role: 'assistant', content }, done: false })}\n`;
const openAIEvent = (content: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-stub', object: 'chat.completion.chunk', created: 1764496800, model: 'stub-model', choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }] })}\n\n`;

async function start(api: 'ollama' | 'openai'): Promise<{ stub: StubLlm; tg: TestGateway }> {
  stub = await startStubLlm(() => ({ content: 'All good.' }));
  tg = await startGateway({ llm: { baseUrl: stub.url, model: 'stub-model', api } }, { llm: { upstream: { retries: 2, backoffMs: 5, idleTimeoutMs: 30_000, ...LIMITS } } });
  return { stub, tg };
}

async function chat(body: Json, stream = false): Promise<Response> {
  return tg!.api('/chat', { method: 'POST', json: body, headers: stream ? { accept: 'text/event-stream' } : {} });
}

/** The turn's error: the JSON error of a plain /chat, or the `error` event of a streamed one. */
async function turnError(res: Response, stream: boolean): Promise<Json> {
  if (!stream) {
    expect(res.status).toBe(502);
    return (await readJson(res)).error;
  }
  for await (const e of readSse(res)) if ('event' in e && e.event === 'error') return JSON.parse(e.data);
  throw new Error('no error event');
}

describe.each(['ollama', 'openai'] as const)('answers of an %s server over the caps', (api) => {
  it('refuses a whole answer over the cap before reading it all, answers /health meanwhile and keeps the conversation', async () => {
    const { stub } = await start(api);
    // A turn that works first: it is stored, and must stay.
    const first = await readJson(await chat({ message: 'Hello?' }));
    expect(first.answer).toBe('All good.');

    const healthDuring: number[] = [];
    const head = api === 'ollama' ? '{"model":"stub-model","message":{"role":"assistant","content":"' : '{"id":"chatcmpl-stub","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
    const { raw, poured } = pour(200, 'application/json', head, filler('la '), OFFERED, async () => {
      healthDuring.push((await fetch(`${tg!.url}/health`)).status);
    });
    stub.setScript(() => ({ raw }));
    const error = await turnError(await chat({ message: 'Again?', conversation_id: first.conversation_id }), false);
    expect(error.name).toBe('LLM_BAD_RESPONSE');
    expect(error.message).toContain(`The LLM server at ${stub.url} sent more than 1 MiB in one answer`);
    expect(error.details).toMatchObject({ limit_bytes: MiB });
    await poured.finished;
    expect(poured.closedEarly).toBe(true);
    expect(poured.sent).toBeLessThan(CUT_OFF_BEFORE);
    expect(healthDuring).toEqual([200]);
    // Not retried: the answer was bad, not the connection.
    expect(stub.requests).toHaveLength(2);

    expect((await fetch(`${tg!.url}/health`)).status).toBe(200);
    const kept = await readJson(await tg!.api(`/chat/conversations/${first.conversation_id}`));
    expect(kept.messages.map((m: Json) => m.message.content)).toEqual(expect.arrayContaining(['Hello?', 'All good.']));
    // A normal answer still works after the refusal, in the same conversation.
    stub.setScript(() => ({ content: 'Back to normal.' }));
    expect((await readJson(await chat({ message: 'And now?', conversation_id: first.conversation_id }))).answer).toBe('Back to normal.');
  });

  it('refuses a streamed answer with one endless line', async () => {
    const { stub } = await start(api);
    const head = api === 'ollama' ? ollamaLine('Hi ') + '{"model":"stub-model","message":{"role":"assistant","content":"' : openAIEvent('Hi ') + 'data: {"choices":[{"index":0,"delta":{"content":"';
    const { raw, poured } = pour(200, api === 'ollama' ? 'application/x-ndjson' : 'text/event-stream', head, filler('la '), OFFERED);
    stub.setScript(() => ({ raw }));
    const error = await turnError(await chat({ message: 'Stream, please.' }, true), true);
    expect(error.name).toBe('LLM_BAD_RESPONSE');
    expect(error.message).toContain(`The LLM server at ${stub.url} sent a stream line longer than 256 KiB`);
    await poured.finished;
    expect(poured.closedEarly).toBe(true);
    expect(poured.sent).toBeLessThan(CUT_OFF_BEFORE);
    expect((await fetch(`${tg!.url}/health`)).status).toBe(200);
  });

  it('refuses a streamed answer of short lines whose total is over the cap', async () => {
    const { stub } = await start(api);
    const line = api === 'ollama' ? ollamaLine('la ') : openAIEvent('la ');
    const { raw, poured } = pour(200, api === 'ollama' ? 'application/x-ndjson' : 'text/event-stream', line, filler(line), OFFERED);
    stub.setScript(() => ({ raw }));
    const res = await chat({ message: 'Stream, please.' }, true);
    const error = await turnError(res, true);
    expect(error.name).toBe('LLM_BAD_RESPONSE');
    expect(error.message).toContain(`The LLM server at ${stub.url} sent more than 2 MiB in one answer`);
    await poured.finished;
    expect(poured.closedEarly).toBe(true);
    expect(poured.sent).toBeLessThan(CUT_OFF_BEFORE);
    expect((await fetch(`${tg!.url}/health`)).status).toBe(200);
  });

  it('shows a short excerpt of a huge error body and reads no more of it, on every retry', async () => {
    const { stub } = await start(api);
    const head = api === 'ollama' ? '{"error":"out of memory: ' : '{"error":{"type":"server_error","message":"out of memory: ';
    const pours: Poured[] = [];
    stub.setScript(() => {
      const { raw, poured } = pour(500, 'application/json', head, filler('la '), OFFERED);
      pours.push(poured);
      return { raw };
    });
    const res = await chat({ message: 'Hello?' });
    expect(res.status).toBe(502);
    const error = (await readJson(res)).error;
    expect(error.name).toBe('LLM_SERVER_ERROR');
    expect(error.message).toMatch(/^The LLM server answered 500: \{"error":.*out of memory: la la /);
    expect(error.message.length).toBeLessThan(1000);
    await Promise.all(pours.map((p) => p.finished));
    // The first attempt and two retries, each cut off after the excerpt.
    expect(pours).toHaveLength(3);
    for (const p of pours) {
      expect(p.closedEarly).toBe(true);
      expect(p.sent).toBeLessThan(CUT_OFF_BEFORE);
    }
    expect((await fetch(`${tg!.url}/health`)).status).toBe(200);
  });

  it('still reads normal answers, whole and streamed, with tool calls', async () => {
    const { stub } = await start(api);
    stub.setScript((request) =>
      request.messages.at(-1)!.role === 'user' ? { content: 'Let me check. ', tool_calls: [{ name: 'calculate', arguments: { expression: '6*7' } }] } : { content: 'It is 42.' },
    );
    const whole = await readJson(await chat({ message: 'What is 6*7?' }));
    expect(whole.answer).toMatch(/It is 42\.$/);
    expect(whole.steps[0]).toMatchObject({ tool: 'calculate', status: 'succeeded' });
    const events: string[] = [];
    let done: Json;
    for await (const e of readSse(await chat({ message: 'What is 6*7?' }, true))) {
      if (!('event' in e)) continue;
      events.push(e.event);
      if (e.event === 'done') done = JSON.parse(e.data);
    }
    expect(events).not.toContain('error');
    expect(done.answer).toMatch(/It is 42\.$/);
  });
});

describe('the default caps', () => {
  it('are named, generous for real answers and applied when none is given', async () => {
    expect(ANSWER_LIMITS).toEqual({ maxBodyBytes: 32 * MiB, maxStreamBytes: 64 * MiB, maxLineBytes: 4 * MiB });
    stub = await startStubLlm();
    const { raw, poured } = pour(200, 'application/x-ndjson', '{"model":"m","message":{"role":"assistant","content":"', filler('la '), OFFERED);
    stub.setScript(() => ({ raw }));
    const provider = new OllamaProvider({ ...DEFAULT_UPSTREAM, baseUrl: stub.url, api: 'ollama', retries: 0 });
    await expect(provider.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'q' }] }, { onText: () => {} })).rejects.toMatchObject({
      errorName: 'LLM_BAD_RESPONSE',
      message: expect.stringContaining('sent a stream line longer than 4 MiB'),
    });
    await poured.finished;
    expect(poured.closedEarly).toBe(true);
    expect(poured.sent).toBeLessThan(4 * MiB + CUT_OFF_BEFORE);
  });

  it('refuse a whole answer whose Content-Length is over the cap without reading it', async () => {
    stub = await startStubLlm();
    const chunk = filler('la ');
    const declared = 640 * chunk.length; // a whole number of chunks, about 40 MiB
    const { raw, poured } = pour(200, { 'content-type': 'application/json', 'content-length': String(declared) }, '', chunk, declared);
    stub.setScript(() => ({ raw }));
    const provider = new OllamaProvider({ ...DEFAULT_UPSTREAM, baseUrl: stub.url, api: 'ollama', retries: 0 });
    await expect(provider.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'q' }] })).rejects.toMatchObject({
      errorName: 'LLM_BAD_RESPONSE',
      message: expect.stringContaining('sent more than 32 MiB in one answer'),
    });
    await poured.finished;
    expect(poured.closedEarly).toBe(true);
    expect(poured.sent).toBeLessThan(CUT_OFF_BEFORE);
  });
});

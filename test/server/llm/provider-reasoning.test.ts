import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_UPSTREAM } from '../../../server/llm/http.js';
import { OllamaProvider } from '../../../server/llm/ollama.js';
import { OpenAIProvider } from '../../../server/llm/openai.js';

/** Reasoning a server sends apart from the text (Ollama's `thinking`, `reasoning_content`, Ollama /v1's `reasoning`). */

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(body: (path: string, stream: boolean) => string): Promise<string> {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const request = JSON.parse(raw) as { stream?: boolean };
      res.writeHead(200, { 'content-type': 'application/json' }).end(body(req.url ?? '', request.stream === true));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const options = (baseUrl: string, api: 'ollama' | 'openai') => ({ ...DEFAULT_UPSTREAM, baseUrl, api, retries: 0 });

describe('reasoning apart from the text', () => {
  it("Ollama's thinking, whole and streamed", async () => {
    const url = await serve((_path, stream) =>
      stream
        ? [
            { message: { role: 'assistant', content: '', thinking: 'Let me ' }, done: false },
            { message: { role: 'assistant', content: '', thinking: 'think.' }, done: false },
            { message: { role: 'assistant', content: 'Answer.' }, done: true, done_reason: 'stop' },
          ]
            .map((c) => JSON.stringify(c))
            .join('\n')
        : JSON.stringify({ message: { role: 'assistant', content: 'Answer.', thinking: 'Let me think.' }, done: true, done_reason: 'stop' }),
    );
    const provider = new OllamaProvider(options(url, 'ollama'));
    const whole = await provider.chat({ model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(whole).toMatchObject({ content: 'Answer.', reasoning: 'Let me think.' });
    const pieces: string[] = [];
    const streamed = await provider.chat({ model: 'm', messages: [{ role: 'user', content: 'q' }] }, { onText: () => {}, onReasoning: (t) => pieces.push(t) });
    expect(pieces).toEqual(['Let me ', 'think.']);
    expect(streamed).toMatchObject({ content: 'Answer.', reasoning: 'Let me think.' });
  });

  it('reasoning_content and reasoning on the OpenAI side, whole and streamed', async () => {
    const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const url = await serve((_path, stream) =>
      stream
        ? `${chunk({ reasoning: 'Hmm. ' })}${chunk({ reasoning_content: 'Yes.' })}${chunk({ content: 'Answer.' })}${chunk({}, 'stop')}data: [DONE]\n\n`
        : JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'Answer.', reasoning_content: 'Hmm. Yes.' }, finish_reason: 'stop' }] }),
    );
    const provider = new OpenAIProvider(options(url, 'openai'));
    expect(await provider.chat({ model: 'm', messages: [{ role: 'user', content: 'q' }] })).toMatchObject({ content: 'Answer.', reasoning: 'Hmm. Yes.' });
    const pieces: string[] = [];
    const streamed = await provider.chat({ model: 'm', messages: [{ role: 'user', content: 'q' }] }, { onText: () => {}, onReasoning: (t) => pieces.push(t) });
    expect(pieces).toEqual(['Hmm. ', 'Yes.']);
    expect(streamed).toMatchObject({ content: 'Answer.', reasoning: 'Hmm. Yes.' });
  });
});

import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../server/cli.js';
import { chat } from '../../../server/cli/chat.js';
import { last, startWithStub, type LlmSetup } from '../llm/gateway-with-llm.js';

/** `pincer chat` against a running gateway whose model is the stub. */

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function capture() {
  const lines = { out: [] as string[], err: [] as string[], written: '' };
  return { lines, out: { log: (l: string) => lines.out.push(l), error: (l: string) => lines.err.push(l) } };
}

describe('pincer chat', () => {
  it('prints the answer and each tool step of one turn', async () => {
    setup = await startWithStub('ollama', (request) =>
      last(request.messages).role === 'user' ? { tool_calls: [{ name: 'calculate', arguments: { expression: '2+3' } }] } : { content: 'It is 5.\nDone.' },
    );
    const { lines, out } = capture();
    const code = await main(['chat', 'What is 2+3?', '--data-dir', setup.tg.dataDir, '--port', String(setup.tg.port)], out);
    expect(code).toBe(0);
    expect(lines.out).toEqual(['It is 5.', 'Done.']);
    expect(lines.err.join('\n')).toContain('calculate {"expression":"2+3"} → succeeded');
  });

  it('keeps one conversation across the lines of an interactive session, and /new starts another', async () => {
    setup = await startWithStub('openai', (request) => ({ content: `seen ${request.messages.length}` }));
    const { lines, out } = capture();
    const input = Readable.from(['hello\n', 'again\n', '/new\n', 'fresh\n', '/exit\n']);
    const code = await chat(['--data-dir', setup.tg.dataDir, '--port', String(setup.tg.port)], out, input);
    expect(code).toBe(0);
    expect(lines.out).toEqual(['seen 1', 'seen 3', 'seen 1']);
  });

  it('says what is wrong when the model cannot be reached', async () => {
    setup = await startWithStub('ollama');
    await setup.stub.close();
    setup.stub.close = async () => {};
    const { lines, out } = capture();
    const code = await main(['chat', 'hi', '--data-dir', setup.tg.dataDir, '--port', String(setup.tg.port)], out);
    expect(code).toBe(1);
    expect(lines.err.join('\n')).toContain('ollama serve');
  });
});

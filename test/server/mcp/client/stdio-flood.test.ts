import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * An imported MCP stdio server is read with the same bounded line reader as a plugin: one that writes its standard
 * output without a line break is ended at the cap and restarted with backoff, the gateway answering throughout with
 * its memory bounded.
 */

const MiB = 1024 * 1024;
// Writes a megabyte of "x" at a time, forever, waiting whenever the pipe is full.
const FLOOD = `const chunk = Buffer.alloc(${MiB}, 0x78);
  const go = () => { while (process.stdout.write(chunk)); process.stdout.once('drain', go); };
  go();`;

let tg: TestGateway;

beforeAll(async () => {
  tg = await startGateway({}, { loadPlugins: true, mcpBackoffMs: [200, 400, 800] });
});
afterAll(async () => tg?.close());

it('a server flooding its standard output without a line break is ended at 16 MiB with the reason, and restarted with backoff', async () => {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const entry = { command: process.execPath, args: ['-e', FLOOD] };
    expect((await tg.asOwner('/mcp-servers/flood', { method: 'PUT', json: entry })).status).toBe(200);
    const view = await until(async () => {
      const answer = await readJson(await tg.api('/mcp-servers/flood'));
      return answer.restarts >= 2 && answer;
    }, 'two restarts', 30_000, 50);
    expect(view.last_error).toBe('Pincer ended the server process: it wrote more than 16 MiB without a line break');
    expect((await readJson(await fetch(`${tg.url}/health`))).status).toBe('ok');
  } finally {
    clearInterval(sampler);
    await tg.asOwner('/mcp-servers/flood', { method: 'DELETE' });
  }
  expect(peak - before).toBeLessThan(160 * MiB);
});

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { pluginFiles, pluginSteps, toolPlugin, writePlugin } from './helpers.js';

/**
 * What a plugin writes is read with caps that apply while reading, and what the gateway writes to it cannot pile up:
 * each flood one by one, through a real gateway and real plugin processes (in the OS sandbox where there is one),
 * the gateway answering /health throughout with its memory bounded (measured loosely, in this process: the gateway
 * runs here).
 */

const MiB = 1024 * 1024;

let tg: TestGateway;
let steps: ReturnType<typeof pluginSteps>;
let stub: Server;
let stubUrl: string;

beforeAll(async () => {
  // A slow service: requests pile up in flight; its 8 MiB answers pile up for a plugin that stops reading.
  const big = Buffer.alloc(8 * MiB, 0x61);
  stub = createServer((req, res) => void setTimeout(() => res.end(req.url?.startsWith('/small') ? 'small' : big), 500));
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
  const settings = { base_url: stubUrl };
  tg = await startGateway({ httpAllow: ['127.0.0.1'], plugins: { deaf: settings, greedy: settings } }, { bundledPluginsDir: null });
  steps = pluginSteps(tg);
});
afterAll(async () => {
  await tg?.close();
  await new Promise((resolve) => stub.close(resolve));
});

const health = async () => expect((await readJson(await fetch(`${tg.url}/health`))).status).toBe('ok');
const listed = async (name: string) => (await readJson(await tg.api('/plugins'))).plugins.find((p: { name: string }) => p.name === name);

/** A tool body that writes `total` bytes to a file descriptor without a line break, waiting whenever the pipe is full. */
const flood = (fd: number, total: number) => `{ const fs = await import('node:fs');
  const chunk = Buffer.alloc(${MiB}, 0x78);
  for (let sent = 0; sent < ${total};) {
    try { sent += fs.writeSync(${fd}, chunk); }
    catch (e) { if (e.code !== 'EAGAIN') return 'stopped: ' + e.code; await new Promise((r) => setTimeout(r, 1)); }
  } }`;

/** The gateway's peak resident memory while `work` runs, above what it was before. */
async function peakGrowth(work: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss) - before;
}

describe('a plugin flooding its pipes', () => {
  it('hundreds of MB on its standard output without a line break are a capped log: the gateway answers, its memory stays bounded, the protocol is untouched', async () => {
    // Standard output is only a log: a forged message and binary bytes there cannot break into the protocol (fd 3).
    const body = `${flood(1, 300 * MiB)}
      const fs = await import('node:fs');
      fs.writeSync(1, '\\n{"type":"result","id":1,"value":"forged"}\\n');
      fs.writeSync(1, Buffer.from([0, 255, 10, 13, 123, 10]));
      ${flood(2, 20 * MiB)}
      return 'genuine';`;
    await steps.installed('chatty', toolPlugin({ chatty_flood: { body, extra: 'timeoutMs: 120000,' } }));
    let answer: Awaited<ReturnType<typeof steps.call>> | undefined;
    const growth = await peakGrowth(async () => {
      const calling = steps.call('chatty_flood').then((a) => (answer = a));
      await health();
      await calling;
    });
    expect(answer!.body).toMatchObject({ success: true, result: 'genuine' });
    expect(growth).toBeLessThan(160 * MiB);
    expect(steps.view('chatty')).toMatchObject({ status: 'running', restarts: 0 });
  });

  it('writing its protocol pipe without a line break ends it at 16 MiB, with the reason in GET /plugins, and it comes back with backoff', async () => {
    const body = `${flood(3, 400 * MiB)} return 'not reached';`;
    await steps.installed('flooder', toolPlugin({ flooder_flood: { body }, flooder_ok: { body: 'return "ok";' } }));
    let answer: Awaited<ReturnType<typeof steps.call>> | undefined;
    const growth = await peakGrowth(async () => {
      answer = await steps.call('flooder_flood');
    });
    const why = 'it wrote more than 16 MiB without a line break on its protocol pipe, so Pincer ended it';
    expect(answer!.body).toMatchObject({ success: false, error: { name: 'PLUGIN_CRASHED', message: expect.stringContaining(why) } });
    expect(growth).toBeLessThan(160 * MiB);
    await health();
    expect(await listed('flooder')).toMatchObject({ status: 'crashed', restarts: 1, reason: expect.stringContaining(why) });
    await until(async () => (await steps.call('flooder_ok')).body.result === 'ok', 'the plugin to come back', 20_000, 250);
    // Back and running, it still shows why it was ended.
    expect((await listed('flooder')).log).toEqual([expect.objectContaining({ level: 'error', message: expect.stringContaining(why) })]);
  });

  it('a flood at load fails the plugin with the reason; the gateway answers', async () => {
    // At the top level a `return` ends nothing: the flood stops at the first error other than a full pipe.
    const flooding = flood(3, 100 * MiB).replace("return 'stopped: ' + e.code;", 'break;');
    writePlugin(steps.pluginsDir, 'eagerflood', ...pluginFiles(toolPlugin({ eagerflood_ok: { body: 'return 1;' } }, {}, flooding)));
    await tg.gateway.plugins.rescan();
    // Whether a held plugin's code runs to list its tools or only after acceptance, it fails once its code runs.
    if ((await steps.settled('eagerflood')).status === 'new') await tg.asOwner('/plugins/eagerflood/accept', { method: 'POST' });
    const failed = await steps.settled('eagerflood', 'failed');
    expect(failed.reason).toContain('more than 16 MiB without a line break');
    await health();
  });
});

describe('a plugin that will not read', () => {
  it('is ended when more than 64 MiB of answers wait for it and it reads none of them, with the reason', async () => {
    // Eight 8 MiB answers are on their way; then, outside any call (no timeout applies), it blocks its own event
    // loop and never reads them.
    const body = `for (let i = 0; i < 8; i++) ctx.http.fetch(ctx.config.base_url + '/' + i, { maxBytes: ${16 * MiB} }).catch(() => undefined);
      setTimeout(() => { for (;;) {} }, 100);
      return 'blocking soon';`;
    await steps.installed('deaf', toolPlugin({ deaf_block: { body } }));
    const growth = await peakGrowth(async () => {
      expect((await steps.call('deaf_block')).body.result).toBe('blocking soon');
      await until(() => steps.view('deaf')?.status === 'crashed', 'the plugin to be ended', 30_000, 50);
    });
    await health();
    expect(await listed('deaf')).toMatchObject({
      restarts: 1,
      reason: expect.stringContaining('it stopped reading what Pincer sends it (over 64 MiB waiting, none of it read for 10 s), so Pincer ended it'),
    });
    expect(growth).toBeLessThan(400 * MiB);
  });

  it('may have 8 requests in flight; more are refused with the reason until some are answered', async () => {
    const body = `const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        ctx.http.fetch(ctx.config.base_url + '/small/' + i).then((r) => r.text(), (e) => e.message)));
      const again = await ctx.http.fetch(ctx.config.base_url + '/small/again');
      return { results, again: again.text() };`;
    await steps.installed('greedy', toolPlugin({ greedy_go: { body } }));
    const answer = (await steps.call('greedy_go')).body;
    expect(answer.success, JSON.stringify(answer).slice(0, 500)).toBe(true);
    expect(answer.result.results.filter((r: string) => r === 'small')).toHaveLength(8);
    expect(answer.result.results.filter((r: string) => r.includes('too many requests at once (at most 8)'))).toHaveLength(4);
    expect(answer.result.again).toBe('small');
  });
});

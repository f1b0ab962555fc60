/**
 * GET /events with many viewers and with viewers that do not read: every viewer gets every event, a viewer that
 * falls behind is told to reconnect and ended, and what waits for it in the gateway stays bounded.
 * Real gateway on 127.0.0.1, real sockets.
 */
import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_LIMITS } from '../../../server/http/event-streams.js';
import { EventStream } from '../../helpers/events.js';
import { readJson as read, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/** A ceiling for waits that involve 200 viewers on a busy machine. */
const WAIT_MS = 15_000;

let tg: TestGateway | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await tg?.close();
  tg = undefined;
});

/** A viewer on a raw socket: reads the stream only while `reading`, and keeps what it read as text. */
class RawViewer {
  text = '';
  closed = false;
  readonly socket: Socket;

  constructor(gw: TestGateway) {
    this.socket = connect(gw.port, '127.0.0.1');
    sockets.push(this.socket);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.text += chunk));
    this.socket.on('error', () => {});
    this.socket.on('close', () => (this.closed = true));
    this.socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nAuthorization: Bearer ${gw.token}\r\n\r\n`);
  }

  async hello(): Promise<void> {
    await until(() => this.text.includes('event: hello'), 'hello', WAIT_MS);
  }
}

/** A viewer that reads everything and keeps each call event it sees, by call id and phase. */
class CountingViewer {
  readonly seen = new Map<string, string[]>();
  resets = 0;
  #buffer = '';
  #response: IncomingMessage | undefined;

  static async open(gw: TestGateway): Promise<CountingViewer> {
    const viewer = new CountingViewer();
    await new Promise<void>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: gw.port, path: '/events', agent: false, headers: { authorization: `Bearer ${gw.token}` } },
        (res) => {
          viewer.#response = res;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            viewer.#read(chunk);
            if (viewer.helloSeen) resolve();
          });
          res.on('error', () => {});
        },
      );
      req.on('error', reject);
      req.end();
    });
    return viewer;
  }

  helloSeen = false;

  #read(chunk: string): void {
    this.#buffer += chunk;
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      if (block.includes('event: hello')) this.helloSeen = true;
      if (block.includes('event: reset')) this.resets++;
      if (!block.startsWith('event: call\n')) continue;
      const { phase, call } = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { phase: string; call: { id: string } };
      const phases = this.seen.get(call.id) ?? [];
      phases.push(phase);
      this.seen.set(call.id, phases);
    }
  }

  close(): void {
    this.#response?.destroy();
  }
}

const OUTPUT_CHUNK = 'x'.repeat(256 * 1024);

/** Publishes one big event per flush until `stop` says so (or 64 MB went out), noting the most bytes queued. */
async function flood(gw: TestGateway, stop: () => boolean): Promise<{ sent: number; peakSeen: number }> {
  let sent = 0;
  let peakSeen = 0;
  while (!stop()) {
    if (sent > 64 * 1024 * 1024) throw new Error('64 MB of events went out and the stalled viewer is still open');
    gw.gateway.events.emit('output', { call_id: 'c_flood', tool: 'flood', chunk: OUTPUT_CHUNK });
    sent += OUTPUT_CHUNK.length;
    // One event per batch: the flush gap is 10 ms here.
    await sleep(15);
    peakSeen = Math.max(peakSeen, gw.gateway.streams.stats().queuedBytes);
  }
  return { sent, peakSeen };
}

describe('a viewer that stops reading', () => {
  const limits = { maxQueuedBytes: 1024 * 1024, flushGapMs: 10 };
  /** One batch of the flood, with its SSE framing and chunked-encoding overhead. */
  const BATCH = OUTPUT_CHUNK.length + 1024;

  it('is ended once its bound is reached, and what waited for it is freed', async () => {
    tg = await startGateway({}, { streamLimits: { ...limits, lingerMs: 200 } });
    const reader = await EventStream.open(tg);
    const stalled = new RawViewer(tg);
    await stalled.hello();
    stalled.socket.pause();

    const { sent, peakSeen } = await flood(tg, () => tg!.gateway.streams.stats().endedBehind > 0);
    const stats = tg.gateway.streams.stats();
    expect(stats.endedBehind).toBe(1);
    // What waited in the gateway for any viewer never went past the bound by more than one batch.
    expect(stats.peakQueuedBytes).toBeLessThanOrEqual(limits.maxQueuedBytes + BATCH);
    expect(peakSeen).toBeLessThanOrEqual(limits.maxQueuedBytes + BATCH);
    // Far more went out than the bound (the kernel's socket buffers took their share first).
    expect(sent).toBeGreaterThan(2 * limits.maxQueuedBytes);

    // The reader that keeps up is still there and got every event.
    expect(stats.viewers).toBe(1);
    const floods = sent / OUTPUT_CHUNK.length;
    await until(() => reader.events.filter((e) => e.event === 'output').length === floods, 'the reader to get every event', WAIT_MS);

    // The stalled one is cut off after its linger, and nothing waits for it any more.
    await until(() => tg!.gateway.streams.stats().lingering === 0, 'the stalled viewer to be cut off', 5_000);
    expect(tg.gateway.streams.stats().queuedBytes).toBeLessThan(BATCH);
    stalled.socket.resume();
    await until(() => stalled.closed, 'the stalled socket to close', WAIT_MS);
    await reader.close();
    await until(() => tg!.gateway.streams.stats().viewers === 0, 'the reader to leave', WAIT_MS);
    expect(tg.gateway.events.listenerCount('call')).toBe(0);
  });

  it('gets a final reset event telling it to catch up from /calls when it reads again in time', async () => {
    tg = await startGateway({}, { streamLimits: { ...limits, lingerMs: 10_000 } });
    const slow = new RawViewer(tg);
    await slow.hello();
    slow.socket.pause();
    await flood(tg, () => tg!.gateway.streams.stats().endedBehind > 0);

    slow.socket.resume();
    // Chunked encoding ends with the zero-length chunk: the gateway ended the response, it did not just drop it.
    await until(() => slow.text.endsWith('\r\n0\r\n\r\n'), 'the end of the ended stream', WAIT_MS);
    const events = slow.text.split('\n\n').filter((block) => block.includes('event: '));
    const last = events.at(-1)!;
    expect(last).toContain('event: reset\n');
    const data = JSON.parse(/data: (.*)/.exec(last)![1]!) as Record<string, unknown>;
    expect(data).toMatchObject({ reason: 'behind', catch_up: '/calls' });
    expect(tg.gateway.streams.stats()).toMatchObject({ viewers: 0, lingering: 0 });
  });
});

describe('many viewers', () => {
  it('200 viewers all receive every call event, once and in order, at a steady call rate', async () => {
    // One client's 200 streams: past the default cap of streams a client may hold, raised here to measure the fan-out.
    tg = await startGateway({}, { streamLimits: { maxPerClient: 200 } });
    const viewers: CountingViewer[] = [];
    try {
      for (let i = 0; i < 200; i++) viewers.push(await CountingViewer.open(tg));
      expect(tg.gateway.streams.stats().viewers).toBe(200);

      // 150 calls, one every 5 ms (200 a second), not waiting for answers: a steady rate, not a burst.
      const answers: Promise<{ call_id: string }>[] = [];
      for (let i = 0; i < 150; i++) {
        answers.push(tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: `${i}+1` } }).then(read));
        await sleep(5);
      }
      const ids = (await Promise.all(answers)).map((a) => a.call_id);
      expect(new Set(ids).size).toBe(150);

      const complete = (v: CountingViewer) => ids.every((id) => v.seen.get(id)?.length === 2);
      await until(() => viewers.every(complete), 'every viewer to see every call start and finish', WAIT_MS);
      for (const viewer of viewers) {
        expect(viewer.resets).toBe(0);
        expect(viewer.seen.size).toBe(150);
        for (const id of ids) expect(viewer.seen.get(id)).toEqual(['started', 'succeeded']);
      }
      expect(tg.gateway.streams.stats().endedBehind).toBe(0);
    } finally {
      for (const viewer of viewers) viewer.close();
    }
    await until(() => tg!.gateway.streams.stats().viewers === 0, 'the viewers to leave', WAIT_MS);
  });
});

describe('the call event', () => {
  it('carries what a live row shows, small however big the arguments and result', async () => {
    tg = await startGateway();
    expect(tg.gateway.events.listenerCount('call')).toBe(0);
    const stream = await EventStream.open(tg);
    expect(tg.gateway.events.listenerCount('call')).toBe(1);
    const text = `${'word '.repeat(40_000)}end`;
    const made = await read(await tg.api('/tools/text_process/execute', { method: 'POST', json: { text, operation: 'uppercase' } }));
    const finished = await stream.next((e) => e.event === 'call' && e.data.call.id === made.call_id && e.data.phase === 'succeeded');
    expect(JSON.stringify(finished.data).length).toBeLessThan(1024);
    expect(Object.keys(finished.data.call).sort()).toEqual(
      [
        'cache_hit',
        'client',
        'decision',
        'duration_ms',
        'error',
        'finished_at',
        'http_status',
        'id',
        'preview',
        'reason',
        'rule',
        'started_at',
        'status',
        'tool',
        'via',
      ].sort(),
    );
    expect(finished.data.call).toMatchObject({ tool: 'text_process', client: 'default', status: 'succeeded', cache_hit: false });
    expect(finished.data.call.preview.length).toBeLessThanOrEqual(240);
    expect(finished.data.call.preview).toMatch(/^text: word word/);
    // The details are where they always were.
    const record = await read(await tg.api(`/calls/${made.call_id}`));
    expect(record.arguments.text).toBe(text);
    expect(record.result).toBeTruthy();
    await stream.close();
    // The last viewer gone, calls build no events at all.
    await until(() => tg!.gateway.events.listenerCount('call') === 0, 'the bus listener to go', WAIT_MS);
  });
});

describe("one client's streams are capped", () => {
  it('the stream past the cap is refused with 429 TOO_MANY_STREAMS; another client and the owner still open theirs; a closed one makes room', async () => {
    expect(DEFAULT_STREAM_LIMITS.maxPerClient).toBe(32);
    tg = await startGateway({}, { streamLimits: { maxPerClient: 3 } });
    const gw = tg;
    const open = await Promise.all([1, 2, 3].map(() => EventStream.open(gw)));
    try {
      const refused = await gw.api('/events');
      expect(refused.status).toBe(429);
      expect((await read(refused)).error).toMatchObject({ name: 'TOO_MANY_STREAMS', code: 624, details: { limit: 3 } });
      expect(gw.gateway.streams.stats().viewers).toBe(3);

      const other = (await read(await gw.asOwner('/clients', { json: { name: 'other-agent' } }))).token as string;
      const asOther = await EventStream.open({ ...gw, api: (path, init = {}) => fetch(`${gw.url}${path}`, { ...init, headers: { authorization: `Bearer ${other}` } }) });
      const owners = await Promise.all([1, 2, 3, 4].map(() => EventStream.openAsOwner(gw)));
      expect(gw.gateway.streams.stats().viewers).toBe(8);
      await asOther.close();
      for (const stream of owners) await stream.close();

      await open.pop()!.close();
      await until(() => gw.gateway.streams.openBy('default') === 2, 'the closed stream to leave', WAIT_MS);
      open.push(await EventStream.open(gw));
      expect(gw.gateway.streams.openBy('default')).toBe(3);
    } finally {
      for (const stream of open) await stream.close();
    }
  });
});

/**
 * Connections that never become requests: the cap that keeps idle sockets from using up the gateway's file
 * descriptors, the timeouts that free them, and the errors Node answers itself, in the envelope.
 * Real gateway on 127.0.0.1, raw sockets.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConnectionLimits, maxConnectionsFor, openFileLimit } from '../../../server/http/connection-limits.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

let tg: TestGateway | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await tg?.close();
  tg = undefined;
});

/** A raw connection that records what the gateway sends and whether it closed. */
interface Raw {
  socket: Socket;
  text: string;
  closed: boolean;
  connected: boolean;
}

function open(port: number, send?: string): Raw {
  const raw: Raw = { socket: connect(port, '127.0.0.1'), text: '', closed: false, connected: false };
  sockets.push(raw.socket);
  raw.socket.setEncoding('latin1');
  raw.socket.on('connect', () => {
    raw.connected = true;
    if (send !== undefined) raw.socket.write(send);
  });
  raw.socket.on('data', (chunk: string) => (raw.text += chunk));
  raw.socket.on('error', () => {});
  raw.socket.on('close', () => (raw.closed = true));
  return raw;
}

/** Status, headers and parsed JSON body of a raw HTTP response. */
function parse(text: string): { status: number; headers: string; body: { success: boolean; error: { name: string; code: number; message: string } } } {
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(text.slice(split + 4)) };
}

describe('errors Node answers itself carry the envelope', () => {
  it('431 HEADERS_TOO_LARGE for request headers over the limit', async () => {
    tg = await startGateway();
    const raw = open(tg.port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${tg.port}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await until(() => raw.closed, 'the gateway to close the connection');
    const answer = parse(raw.text);
    expect(answer.status).toBe(431);
    expect(answer.headers).toContain('content-type: application/json');
    expect(answer.headers).toContain('connection: close');
    expect(answer.body).toMatchObject({ success: false, error: { name: 'HEADERS_TOO_LARGE', code: 431 } });
    expect(answer.body.error.message).toMatch(/headers/);
  });

  it('400 INVALID_REQUEST for a request line that is not HTTP', async () => {
    tg = await startGateway();
    const raw = open(tg.port, 'HELLO THERE\r\n\r\n');
    await until(() => raw.closed, 'the gateway to close the connection');
    const answer = parse(raw.text);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: { name: 'INVALID_REQUEST', code: 400 } });
  });

  it('408 REQUEST_TIMEOUT for a connection that never finishes its request head', async () => {
    tg = await startGateway({}, { connectionLimits: { headersTimeoutMs: 300, checkIntervalMs: 100 } });
    const silent = open(tg.port);
    const slow = open(tg.port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${tg.port}\r\n`);
    await until(() => silent.closed && slow.closed, 'both connections to be closed');
    for (const raw of [silent, slow]) {
      const answer = parse(raw.text);
      expect(answer.status).toBe(408);
      expect(answer.body).toMatchObject({ success: false, error: { name: 'REQUEST_TIMEOUT', code: 408 } });
    }
  });
});

describe('idle connections cannot lock everyone out', () => {
  async function openAll(port: number, count: number, send?: string): Promise<Raw[]> {
    const all: Raw[] = [];
    for (let i = 0; i < count; i++) {
      const raw = open(port, send);
      all.push(raw);
      // One at a time, as a flood arrives: each is accepted (or refused) before the next.
      await until(() => raw.connected || raw.closed, 'the connection');
      await sleep(5);
    }
    return all;
  }

  it('a flood of connections that never send a request cannot keep a real client out: the oldest make room', async () => {
    // The headers timeout is long here: what lets the client in is the room made for it, not a timeout.
    tg = await startGateway({}, { connectionLimits: { maxConnections: 10, headersTimeoutMs: 30_000 } });
    const silent = await openAll(tg.port, 30);
    await sleep(100);
    const stillOpen = silent.filter((raw) => !raw.closed);
    // Never more than the cap less its headroom; the ones closed are the oldest, and they were sent nothing.
    expect(stillOpen.length).toBeLessThanOrEqual(9);
    expect(stillOpen.length).toBeGreaterThan(0);
    expect(silent.slice(-stillOpen.length).every((raw) => !raw.closed)).toBe(true);
    expect(silent.filter((raw) => raw.closed).every((raw) => raw.text === '')).toBe(true);

    const health = await fetch(`${tg.url}/health`);
    expect(health.status).toBe(200);
    const call = await tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: '2+2' } });
    expect((await call.json()) as unknown).toMatchObject({ success: true, result: { result: 4 } });
  });

  it('connections that are busy are never closed to make room; past the cap a newcomer is closed at once', async () => {
    tg = await startGateway({}, { connectionLimits: { maxConnections: 10, headersTimeoutMs: 30_000 } });
    const streams = await openAll(tg.port, 10, `GET /events HTTP/1.1\r\nHost: 127.0.0.1:${tg.port}\r\nAuthorization: Bearer ${tg.token}\r\n\r\n`);
    await until(() => streams.every((raw) => raw.text.includes('event: hello')), 'every stream to say hello');
    const newcomer = open(tg.port);
    await until(() => newcomer.closed, 'the newcomer to be closed', 1_000);
    expect(newcomer.text).toBe('');
    expect(streams.some((raw) => raw.closed)).toBe(false);
    expect(tg.gateway.streams.stats().viewers).toBe(10);
  });

  it('connections that never finish their request head are answered 408 and closed after the headers timeout', async () => {
    tg = await startGateway({}, { connectionLimits: { maxConnections: 10, headersTimeoutMs: 500, checkIntervalMs: 100 } });
    const idle = await openAll(tg.port, 8);
    await until(() => idle.every((raw) => raw.closed), 'the idle connections to time out', 5_000);
    for (const raw of idle) expect(parse(raw.text).status).toBe(408);
  });

  it('the gateway keeps well below its open-file limit', () => {
    const limit = openFileLimit();
    const cap = defaultConnectionLimits().maxConnections;
    if (limit !== undefined) expect(cap).toBeLessThanOrEqual(limit / 2);
    expect(cap).toBeGreaterThan(0);
  });
});

describe('sizing the cap from the open-file limit', () => {
  const limits = (soft: string, hard = soft) =>
    [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max cpu time              unlimited            unlimited            seconds   ',
      `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     `,
      'Max locked memory         8388608              8388608              bytes     ',
    ].join('\n');

  it('reads the soft limit from /proc/self/limits', () => {
    expect(openFileLimit(() => limits('20000'))).toBe(20_000);
    expect(openFileLimit(() => limits('1024', '1048576'))).toBe(1024);
  });

  it('knows nothing where the limits cannot be read', () => {
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    expect(openFileLimit(() => 'nothing useful')).toBeUndefined();
  });

  it('gives connections half the descriptors, keeping some for everything else', () => {
    expect(maxConnectionsFor(20_000)).toBe(10_000);
    expect(maxConnectionsFor(1024)).toBe(512);
    expect(maxConnectionsFor(100)).toBe(36);
    expect(maxConnectionsFor(undefined)).toBe(1024);
  });
});

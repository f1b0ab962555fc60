import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody, type BodyLimits, type BodyRead } from '../../../server/security/read-body.js';

/** The one body reader, on real sockets: a request we are sent (drained past the cap) and an answer we fetched. */

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** Sends `body` to the server; resolves with the server's answer text. */
function post(port: number, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads what the server answers at `/` with the given limits. */
function fetchBody(port: number, limits: BodyLimits): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => void readBody(res, limits).then(resolve, reject))
      .on('error', reject)
      .end();
  });
}

describe('readBody on a request (rest: drain)', () => {
  it('keeps a body within the cap whole', async () => {
    let read: BodyRead | undefined;
    const port = await listen(async (req, res) => {
      read = await readBody(req, { maxBytes: 16, rest: 'drain' });
      res.end('ok');
    });
    expect(await post(port, Buffer.from('0123456789abcdef'))).toBe('ok');
    expect(read).toEqual({ body: Buffer.from('0123456789abcdef'), truncated: false });
  });

  it('stops at the cap and still answers on the same connection', async () => {
    let read: BodyRead | undefined;
    const port = await listen(async (req, res) => {
      read = await readBody(req, { maxBytes: 1024, rest: 'drain' });
      res.end('too large');
    });
    expect(await post(port, Buffer.alloc(256 * 1024, 'x'))).toBe('too large');
    expect(read!.truncated).toBe(true);
    expect(read!.body.length).toBe(1024);
  });
});

describe('readBody on an answer (rest: close)', () => {
  it('cuts a decompression bomb at the cap of decoded bytes', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const port = await listen((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const read = await fetchBody(port, { maxBytes: 100_000, rest: 'close', decode: true });
    expect(read.truncated).toBe(true);
    expect(read.body.length).toBe(100_000);
  });

  it('keeps an encoding it cannot undo, and does not decode unless asked', async () => {
    const port = await listen((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'zstd' });
      res.end('still encoded');
    });
    expect(await fetchBody(port, { maxBytes: 100, rest: 'close', decode: true })).toEqual({
      body: Buffer.from('still encoded'),
      truncated: false,
      encoding: 'zstd',
    });
    expect(await fetchBody(port, { maxBytes: 100, rest: 'close' })).toEqual({ body: Buffer.from('still encoded'), truncated: false });
  });

  it('rejects at once when the signal has already fired', async () => {
    const port = await listen((_req, res) => res.end('late'));
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(fetchBody(port, { maxBytes: 100, rest: 'close', signal: controller.signal })).rejects.toThrow('stopped');
  });
});

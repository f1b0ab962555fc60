/**
 * Live-event viewers for the benchmark, in their own process so reading the streams never shares the load
 * generator's event loop:
 *
 *   node dist/bench/viewers.js <port> <token> <count> bytes|events
 *
 * Opens <count> GET /events streams on 127.0.0.1:<port>. `bytes` only counts what arrives (the cheapest reader, for
 * the throughput runs); `events` also counts each viewer's `call` events and those that say a call succeeded.
 * Protocol (one JSON object per line): prints {"ready":true,"viewers":N} once every stream has said hello; each
 * "report" line on stdin is answered with {"report":[{bytes, calls, succeeded, resets, ended}, …]}. Exits, closing
 * every stream, when stdin closes.
 */
import { request, type ClientRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { LOOPBACK } from './common.js';

interface ViewerCounts {
  bytes: number;
  /** `call` events (events mode). */
  calls: number;
  /** `call` events for a call that succeeded (events mode). */
  succeeded: number;
  /** `reset` events: the gateway ended the stream for falling behind. */
  resets: number;
  /** The stream ended or failed. */
  ended: boolean;
}

const RESET = Buffer.from('event: reset\n');

class Viewer {
  readonly counts: ViewerCounts = { bytes: 0, calls: 0, succeeded: 0, resets: 0, ended: false };
  #text = '';
  #request: ClientRequest | undefined;

  constructor(
    private readonly countEvents: boolean,
    private readonly onHello: () => void,
  ) {}

  open(port: number, token: string): void {
    let hello = false;
    this.#request = request(
      { host: LOOPBACK, port, path: '/events', agent: false, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) fail(`GET /events answered ${res.statusCode}`);
        res.on('data', (chunk: Buffer) => {
          this.counts.bytes += chunk.length;
          if (this.countEvents) this.#read(chunk.toString('utf8'));
          else if (chunk.includes(RESET)) this.counts.resets++;
          if (!hello) {
            hello = true;
            this.onHello();
          }
        });
        res.on('end', () => (this.counts.ended = true));
        res.on('error', () => (this.counts.ended = true));
      },
    );
    this.#request.on('error', (error) => {
      if (!hello) fail(`GET /events failed: ${error.message}`);
      this.counts.ended = true;
    });
    this.#request.end();
  }

  close(): void {
    this.#request?.destroy();
  }

  #read(text: string): void {
    this.#text += text;
    let start = 0;
    let end: number;
    while ((end = this.#text.indexOf('\n\n', start)) >= 0) {
      if (this.#text.startsWith('event: call\n', start)) {
        this.counts.calls++;
        const phase = this.#text.indexOf('"phase":"succeeded"', start);
        if (phase >= 0 && phase < end) this.counts.succeeded++;
      } else if (this.#text.startsWith('event: reset\n', start)) {
        this.counts.resets++;
      }
      start = end + 2;
    }
    this.#text = this.#text.slice(start);
  }
}

function send(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function fail(message: string): never {
  process.stderr.write(`bench viewers: ${message}\n`);
  process.exit(1);
}

const [portArg, token, countArg, mode] = process.argv.slice(2);
const port = Number(portArg);
const count = Number(countArg);
if (!Number.isInteger(port) || !token || !Number.isInteger(count) || count < 1 || (mode !== 'bytes' && mode !== 'events')) {
  fail('usage: viewers.js <port> <token> <count> bytes|events');
}

const viewers: Viewer[] = [];
let greeted = 0;
for (let i = 0; i < count; i++) {
  const viewer = new Viewer(mode === 'events', () => {
    if (++greeted === count) send({ ready: true, viewers: count });
  });
  viewers.push(viewer);
  viewer.open(port, token);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'report') send({ report: viewers.map((v) => v.counts) });
});
process.stdin.on('end', () => {
  for (const viewer of viewers) viewer.close();
  process.exit(0);
});
process.stdin.on('error', () => process.exit(1));

/**
 * LLM proxy overhead bar: Pincer's own cost on a proxied completion without tools, ≤ 5 ms p50. A model stand-in on
 * 127.0.0.1 answers at once (fixed bytes, OpenAI SSE or JSON, or Ollama JSON); the same turns are sent to it
 * directly and through the gateway's /v1/chat/completions and /api/chat, one at a time over keep-alive, and the
 * overhead is the difference of the medians. Everything runs in this process (the gateway as `createGateway`).
 * Run alone with `node dist/bench/llm.js [--turns N]`.
 */
import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGateway, loadConfig } from '../server/index.js';
import { makeTempDir, removeTempDir } from './children.js';
import { summarize, type LatencySummary, type Verdict } from './common.js';

export const LLM_OVERHEAD_BAR_MS = 5;

export interface LlmBenchResult {
  turns: number;
  cases: { name: string; direct: LatencySummary; proxied: LatencySummary; overheadP50Ms: number }[];
}

const MESSAGES = [{ role: 'user', content: 'Say hello.' }];

/** A model that answers every request at once with the same short answer. */
function startModel(): Promise<Server> {
  const openAiJson = JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1764496800,
    model: 'bench-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  });
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1764496800, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const openAiSse = `${chunk({ role: 'assistant', content: '' }, null)}${chunk({ content: 'Hello.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`;
  const ollamaJson = JSON.stringify({ model: 'bench-model', created_at: '2026-12-01T00:00:00Z', message: { role: 'assistant', content: 'Hello.' }, done_reason: 'stop', done: true, eval_count: 2, prompt_eval_count: 5 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean };
      if (req.url === '/api/chat') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(ollamaJson);
      } else if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(openAiSse);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(openAiJson);
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One POST, its whole answer read; resolves with the milliseconds it took. */
function post(agent: Agent, port: number, path: string, body: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(token && { authorization: `Bearer ${token}` }) } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`));
        res.resume();
        res.on('end', () => resolve(performance.now() - t0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function timeTurns(turns: number, send: () => Promise<number>): Promise<number[]> {
  for (let i = 0; i < Math.min(200, turns); i++) await send(); // warm-up: JIT, connections
  const times: number[] = [];
  for (let i = 0; i < turns; i++) times.push(await send());
  return times;
}

export async function benchLlm(turns = 1000): Promise<LlmBenchResult> {
  const model = await startModel();
  const modelPort = (model.address() as AddressInfo).port;
  const dataDir = makeTempDir('pincer-bench-llm-');
  const root = makeTempDir('pincer-bench-llm-root-');
  const cases: LlmBenchResult['cases'] = [];
  try {
    for (const api of ['openai', 'ollama'] as const) {
      const config = { ...loadConfig({ flags: { dataDir, port: 0, host: '127.0.0.1' }, env: {}, cwd: root }), llm: { baseUrl: `http://127.0.0.1:${modelPort}`, model: 'bench-model', api } };
      const gateway = createGateway({ config, bundledPluginsDir: null, log: () => {} });
      const { port } = await gateway.listen();
      const token = gateway.credentials.defaultToken;
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const shapes =
          api === 'openai'
            ? [
                { name: 'openai → openai, JSON', path: '/v1/chat/completions', direct: '/v1/chat/completions', body: { model: 'bench-model', messages: MESSAGES } },
                { name: 'openai → openai, stream', path: '/v1/chat/completions', direct: '/v1/chat/completions', body: { model: 'bench-model', messages: MESSAGES, stream: true } },
              ]
            : [{ name: 'ollama → ollama, JSON', path: '/api/chat', direct: '/api/chat', body: { model: 'bench-model', messages: MESSAGES, stream: false } }];
        for (const shape of shapes) {
          const body = JSON.stringify(shape.body);
          // Interleaved halves, so a burst of other load hits both sides alike.
          const direct: number[] = [];
          const proxied: number[] = [];
          for (let half = 0; half < 2; half++) {
            direct.push(...(await timeTurns(turns / 2, () => post(agent, modelPort, shape.direct, body))));
            proxied.push(...(await timeTurns(turns / 2, () => post(agent, port, shape.path, body, token))));
          }
          const d = summarize(direct);
          const p = summarize(proxied);
          cases.push({ name: shape.name, direct: d, proxied: p, overheadP50Ms: Math.round((p.p50 - d.p50) * 1000) / 1000 });
        }
      } finally {
        agent.destroy();
        await gateway.close(1000);
      }
    }
  } finally {
    model.close();
    removeTempDir(dataDir);
    removeTempDir(root);
  }
  return { turns, cases };
}

export function llmLines(result: LlmBenchResult): string[] {
  const lines = [`LLM proxies: ${result.turns} sequential turns each way, a model stand-in answering at once; overhead = p50 proxied − p50 direct`];
  for (const c of result.cases) {
    lines.push(`  ${c.name.padEnd(26)} direct p50 ${c.direct.p50.toFixed(3)} ms · proxied p50 ${c.proxied.p50.toFixed(3)} ms (p99 ${c.proxied.p99.toFixed(3)}) · overhead ${c.overheadP50Ms.toFixed(3)} ms`);
  }
  return lines;
}

export function llmVerdicts(result: LlmBenchResult): Verdict[] {
  const worst = Math.max(...result.cases.map((c) => c.overheadP50Ms));
  return [
    {
      name: 'llm_proxy_overhead_p50_ms',
      value: worst,
      bar: `<= ${LLM_OVERHEAD_BAR_MS} ms`,
      ok: worst <= LLM_OVERHEAD_BAR_MS,
      text: `LLM proxy overhead p50 (worst case) = ${worst.toFixed(3)} ms (bar ≤ ${LLM_OVERHEAD_BAR_MS} ms)`,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { turns: { type: 'string' } } });
  const turns = Number(values.turns ?? 1000);
  benchLlm(turns).then(
    (result) => {
      const lines = [...llmLines(result), ...llmVerdicts(result).map((v) => `${v.ok ? 'MET' : 'MISSED'}  ${v.text}`)];
      process.stdout.write(`${lines.join('\n')}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`bench llm: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}

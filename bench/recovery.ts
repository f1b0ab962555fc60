/**
 * Text-shaped tool-call recovery must not slow a plain answer. A streamed answer of plain prose (with the odd `<`,
 * `[` and `{` prose has) is fed in model-sized chunks through what every streamed chunk goes through in the tool
 * loop (the reasoning splitter and the stream gate, AnswerStream) and, as the baseline in the same run, through a
 * pass-through that only hands each chunk on. Reported per chunk, and as a ratio to the pass-through.
 * Run alone with `node dist/bench/recovery.js`.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AnswerStream } from '../server/llm/answer-text.js';
import { recoverToolCalls } from '../server/llm/recovery/recover.js';
import { nameResolver } from '../server/llm/recovery/names.js';
import type { Verdict } from './common.js';

/** The gate's own cost per chunk may be at most this: a model streams tens of chunks a second, not millions. */
export const RECOVERY_CHUNK_BAR_NS = 2000;

export interface RecoveryBenchResult {
  chunks: number;
  passNsPerChunk: number;
  gateNsPerChunk: number;
  /** The whole answer read once by every parser (the non-streamed path), per answer. */
  wholeAnswerUs: number;
  ratio: number;
}

const PROSE = [
  'The capital of Australia is Canberra, not Sydney; many people guess wrong because Sydney is larger.',
  'If a < b and b < c, then a < c: that is transitivity, and it holds for any total order.',
  'See [the docs](https://example.org/docs) for details, or run `npm test` to check your setup.',
  'A JSON object such as {"a": 1} is written with braces; an array such as [1, 2, 3] with brackets.',
  'Here is the plan:\n1. Read the file.\n2. Count the words.\n3. Report the total.\n',
  '中文的句子也会出现在回答里，工具调用的恢复不应该让它们变慢。',
].join(' ');

const OFFERED = ['get_time', 'calculate', 'file_read', 'file_write', 'run_shell', 'text_process', 'json_parse', 'http_get'];

/** The answer cut into chunks of 3–6 characters, as tokens stream. */
function chunksOf(text: string, copies: number): string[] {
  const all = Array.from({ length: copies }, () => text).join('\n');
  const chunks: string[] = [];
  for (let i = 0, n = 3; i < all.length; i += n, n = 3 + (i % 4)) chunks.push(all.slice(i, i + n));
  return chunks;
}

function time(rounds: number, run: () => void): number {
  for (let i = 0; i < Math.max(3, rounds / 10); i++) run(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) run();
  return (performance.now() - t0) / rounds;
}

export function benchRecovery(rounds = 200): RecoveryBenchResult {
  const chunks = chunksOf(PROSE, 20);
  const resolve = nameResolver(OFFERED);
  let sink = 0;
  const passMs = time(rounds, () => {
    let shown = '';
    const emit = (text: string) => {
      shown += text;
    };
    for (const chunk of chunks) emit(chunk);
    sink += shown.length;
  });
  const gateMs = time(rounds, () => {
    let shown = '';
    const stream = new AnswerStream(resolve, {
      text: (text) => {
        shown += text;
      },
      reasoning: () => {},
    });
    for (const chunk of chunks) stream.push(chunk);
    stream.finish();
    sink += shown.length;
  });
  const whole = chunks.join('');
  const wholeMs = time(rounds, () => {
    sink += recoverToolCalls(whole, resolve).text.length;
  });
  if (sink < 0) throw new Error('unreachable');
  const passNs = (passMs * 1e6) / chunks.length;
  const gateNs = (gateMs * 1e6) / chunks.length;
  return {
    chunks: chunks.length,
    passNsPerChunk: Math.round(passNs * 10) / 10,
    gateNsPerChunk: Math.round(gateNs * 10) / 10,
    wholeAnswerUs: Math.round(wholeMs * 1e4) / 10,
    ratio: Math.round((gateNs / passNs) * 10) / 10,
  };
}

export function recoveryLines(result: RecoveryBenchResult): string[] {
  return [
    `Tool-call recovery on a plain streamed answer: ${result.chunks} chunks of 3–6 characters`,
    `  pass-through ${result.passNsPerChunk} ns/chunk · reasoning split + stream gate ${result.gateNsPerChunk} ns/chunk (${result.ratio}× the pass-through) · every parser over the whole answer ${result.wholeAnswerUs} µs`,
  ];
}

export function recoveryVerdicts(result: RecoveryBenchResult): Verdict[] {
  const overhead = result.gateNsPerChunk - result.passNsPerChunk;
  return [
    {
      name: 'recovery_overhead_ns_per_chunk',
      value: Math.round(overhead),
      bar: `<= ${RECOVERY_CHUNK_BAR_NS} ns`,
      ok: overhead <= RECOVERY_CHUNK_BAR_NS,
      text: `Recovery overhead per streamed chunk = ${Math.round(overhead)} ns, ${result.ratio}× the pass-through (bar ≤ ${RECOVERY_CHUNK_BAR_NS} ns)`,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = benchRecovery();
  const lines = [...recoveryLines(result), ...recoveryVerdicts(result).map((v) => `${v.ok ? 'MET' : 'MISSED'}  ${v.text}`)];
  process.stdout.write(`${lines.join('\n')}\n`);
}

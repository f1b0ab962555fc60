import { readFileSync } from 'node:fs';

/** Constants and small helpers shared by the benchmark's parent (gateway.ts) and its server children (servers.ts). */

/** Every server in the benchmark binds here and nowhere else. */
export const LOOPBACK = '127.0.0.1';

/** The route every target is loaded on; the bare servers answer it whatever the body. */
export const BENCH_PATH = '/tools/calculate/execute';

/** The tool list an OpenAI-style assistant fetches before a turn. */
export const TOOLS_PATH = '/tools/openai';

/** The body every target receives. */
export const BENCH_BODY = JSON.stringify({ expression: '(1+2)*3' });

/** What the bare servers answer: the shape of a Pincer success, without its work. */
export const FIXED_RESULT = { success: true, result: { expression: '(1+2)*3', result: 9 } } as const;

/** The parent's environment minus Pincer's own variables, so a developer's PINCER_* settings never leak in. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PINCER_')));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile of an ascending-sorted array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export interface LatencySummary {
  samples: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** Summary of latencies in milliseconds (full precision: every sample is kept and sorted). */
export function summarize(values: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    samples: sorted.length,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** CPU time (user + system) a process has used so far, in milliseconds; null when /proc cannot tell. */
export function cpuTimeMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" that closes the command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ is 100 on every mainstream architecture. */
const CLOCK_TICKS = 100;

/** Machine-wide busy CPU time (all cores, everything but idle and iowait) so far, in milliseconds; null off Linux. */
export function machineBusyMs(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [, user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    void idle;
    void iowait;
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return Number.isFinite(busy) ? (busy * 1000) / CLOCK_TICKS : null;
  } catch {
    return null;
  }
}

/** One bar of the benchmark, as a line of the report says it. */
export interface Verdict {
  name: string;
  text: string;
  value: number | null;
  bar: string;
  ok: boolean;
  /** Other processes were busy during a run this verdict rests on: take it with salt, run again. */
  noisy?: boolean;
}

/** recall@5 and MRR@10 of a set of queries; `rank` is the wanted memory's place from 1 (0: not in the top 10). */
export interface RankScore {
  queries: number;
  recallAt5: number;
  mrrAt10: number;
}

export interface RankedQuery<K extends string> {
  kind: K;
  query: string;
  rank: number;
}

/** Retrieval quality overall and per kind of query, with the queries whose memory was not in the top 5. */
export function retrievalScores<K extends string>(ranks: RankedQuery<K>[], kinds: readonly K[]) {
  const score = (list: RankedQuery<K>[]): RankScore => ({
    queries: list.length,
    recallAt5: list.filter((r) => r.rank >= 1 && r.rank <= 5).length / Math.max(1, list.length),
    mrrAt10: list.reduce((sum, r) => sum + (r.rank >= 1 ? 1 / r.rank : 0), 0) / Math.max(1, list.length),
  });
  const all = score(ranks);
  return {
    recallAt5: all.recallAt5,
    mrrAt10: all.mrrAt10,
    byKind: Object.fromEntries(kinds.map((k) => [k, score(ranks.filter((r) => r.kind === k))])) as Record<K, RankScore>,
    misses: ranks.filter((r) => r.rank < 1 || r.rank > 5),
  };
}

/** CPU used by every process but this one since `busyBefore`/`ownBefore` were read, in cores; null when /proc cannot tell. */
export function otherCores(busyBefore: number | null, ownBefore: number | null, wallMs: number): number | null {
  const busy = machineBusyMs();
  const own = cpuTimeMs(process.pid);
  if (busyBefore === null || ownBefore === null || busy === null || own === null || wallMs <= 0) return null;
  return Math.max(0, (busy - busyBefore - (own - ownBefore)) / wallMs);
}

import { formatWhen } from '../../lib/format';
import type { StatsRange, StatsReport } from '../../lib/types';

// Durations and times are formatted by lib/format.ts; these are the words and numbers only the stats view uses.

const count = new Intl.NumberFormat();

export function formatCount(n: number): string {
  return count.format(n);
}

/** The calls (or the failed or denied ones) over the whole range: the sum over its buckets. */
export function totalInRange(overTime: StatsReport['over_time'], count: 'calls' | 'failed'): number {
  return overTime.buckets.reduce((n, b) => n + b[count], 0);
}

/** A share from 0 to 1 as a percentage: whole numbers, but never rounds a small failure rate to 0 % or 100 %. */
export function formatPercent(share: number | null): string {
  if (share === null) return '—';
  const pct = share * 100;
  if (pct > 0 && pct < 1) return '<1 %';
  if (pct > 99 && pct < 100) return '>99 %';
  return `${Math.round(pct)} %`;
}

export const RANGE_LABEL: Record<StatsRange, string> = { '1h': 'Last hour', '24h': 'Last 24 hours', '7d': 'Last 7 days' };
/** For sentences: "in the last hour". */
export const RANGE_PHRASE: Record<StatsRange, string> = { '1h': 'the last hour', '24h': 'the last 24 hours', '7d': 'the last 7 days' };

/** What one bucket of a range spans: "per minute". */
export const BUCKET_WORD: Record<StatsRange, string> = { '1h': 'minute', '24h': 'hour', '7d': '6 hours' };

/** Time-axis labels: clock times within a day, days across a week (epoch seconds in). */
export function axisTime(range: StatsRange, seconds: number): string {
  const date = new Date(seconds * 1000);
  if (range !== '7d') return formatWhen(date, 'minute');
  return date.getHours() === 0 && date.getMinutes() === 0 ? formatWhen(date, 'day') : formatWhen(date, 'minute');
}

/** The span of one bucket, for the hover readout: "14:05–14:06", "Tue 12:00–18:00". */
export function bucketSpan(range: StatsRange, startMs: number, bucketS: number): string {
  return `${formatWhen(startMs, range === '7d' ? 'weekday-minute' : 'minute')}–${formatWhen(startMs + bucketS * 1000, 'minute')}`;
}

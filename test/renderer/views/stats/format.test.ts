import { afterAll, describe, expect, it, vi } from 'vitest';
import type { StatsRange } from '../../../../renderer/src/lib/types.js';
import { axisTime, BUCKET_WORD, bucketSpan, formatCount, formatPercent, RANGE_LABEL, RANGE_PHRASE, totalInRange } from '../../../../renderer/src/views/stats/format.js';

// Axis labels and bucket spans are local clock times, from formatters built when the module loads: pin the time zone
// first (vi.hoisted runs above the imports).
const previousTz = vi.hoisted(() => {
  const previous = process.env.TZ;
  process.env.TZ = 'UTC';
  return previous;
});
afterAll(() => {
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
});

const US = new Intl.DateTimeFormat().resolvedOptions().locale === 'en-US';
const RANGES: StatsRange[] = ['1h', '24h', '7d'];
const clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const dayClock = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: 'numeric', minute: '2-digit' });
const day = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('formatCount', () => {
  it('formats with the locale grouping', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1_234_567)).toBe(new Intl.NumberFormat().format(1_234_567));
  });

  it.runIf(US)('reads "1,234,567" in en-US', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
  });
});

describe('totalInRange', () => {
  const overTime = (counts: [number, number][]) => ({
    since: '2025-01-01T00:00:00Z',
    bucket_s: 60,
    range: '1h' as const,
    buckets: counts.map(([calls, failed], i) => ({ at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(), calls, failed })),
  });

  it('sums the calls, or the failed ones, over every bucket', () => {
    const o = overTime([[3, 1], [0, 0], [5, 2]]);
    expect(totalInRange(o, 'calls')).toBe(8);
    expect(totalInRange(o, 'failed')).toBe(3);
  });

  it('a range without buckets has no calls', () => {
    expect(totalInRange(overTime([]), 'calls')).toBe(0);
  });
});

describe('formatPercent', () => {
  it('null has nothing to show: an em dash', () => {
    expect(formatPercent(null)).toBe('—');
  });

  it('0 and 1 are exactly "0 %" and "100 %"', () => {
    expect(formatPercent(0)).toBe('0 %');
    expect(formatPercent(1)).toBe('100 %');
  });

  it('whole percentages, rounded', () => {
    expect(formatPercent(0.5)).toBe('50 %');
    expect(formatPercent(1 / 3)).toBe('33 %');
    expect(formatPercent(2 / 3)).toBe('67 %');
    expect(formatPercent(0.57)).toBe('57 %');
  });

  it('a small failure rate never rounds to "0 %"', () => {
    expect(formatPercent(0.000_001)).toBe('<1 %');
    expect(formatPercent(0.004)).toBe('<1 %');
    expect(formatPercent(0.009_99)).toBe('<1 %');
  });

  it('exactly 1 % is "1 %"', () => {
    expect(formatPercent(0.01)).toBe('1 %');
  });

  it('a near-total rate never rounds to "100 %"', () => {
    expect(formatPercent(0.995)).toBe('>99 %');
    expect(formatPercent(0.999_999)).toBe('>99 %');
    expect(formatPercent(0.991)).toBe('>99 %');
  });

  it('exactly 99 % is "99 %"', () => {
    expect(formatPercent(0.99)).toBe('99 %');
  });
});

describe('range words', () => {
  it('every range has a label, a phrase for sentences and a bucket word', () => {
    for (const range of RANGES) {
      expect(RANGE_LABEL[range], range).toMatch(/^Last /);
      expect(RANGE_PHRASE[range], range).toMatch(/^the last /);
      expect(BUCKET_WORD[range], range).not.toBe('');
    }
  });

  it('the label and the phrase name the same span', () => {
    for (const range of RANGES) expect(RANGE_LABEL[range].toLowerCase(), range).toBe(RANGE_PHRASE[range].replace(/^the /, ''));
  });

  it('buckets: a minute for an hour, an hour for a day, 6 hours for a week', () => {
    expect(BUCKET_WORD).toEqual({ '1h': 'minute', '24h': 'hour', '7d': '6 hours' });
  });
});

describe('axisTime (time zone pinned to UTC)', () => {
  it('the hour and day ranges label every tick with the clock time, midnight included', () => {
    for (const iso of ['2025-03-05T14:05:00Z', '2025-03-05T00:00:00Z']) {
      expect(axisTime('1h', seconds(iso)), iso).toBe(clock.format(new Date(iso)));
      expect(axisTime('24h', seconds(iso)), iso).toBe(clock.format(new Date(iso)));
    }
  });

  it('the week range labels local midnight with the day', () => {
    const iso = '2025-03-04T00:00:00Z';
    expect(axisTime('7d', seconds(iso))).toBe(day.format(new Date(iso)));
  });

  it('the week range labels other ticks with the clock time, 00:30 included', () => {
    for (const iso of ['2025-03-04T06:00:00Z', '2025-03-04T00:30:00Z']) expect(axisTime('7d', seconds(iso)), iso).toBe(clock.format(new Date(iso)));
  });

  it.runIf(US)('reads "Mar 4" at midnight on the week range in en-US', () => {
    expect(axisTime('7d', seconds('2025-03-04T00:00:00Z'))).toBe('Mar 4');
  });

  it('a tick a few seconds past midnight is still midnight: only hours and minutes count', () => {
    expect(axisTime('7d', seconds('2025-03-04T00:00:30Z'))).toBe(day.format(new Date('2025-03-04T00:00:30Z')));
  });
});

describe('bucketSpan (time zone pinned to UTC)', () => {
  it('the hour range: start and end clock times of one minute', () => {
    const start = Date.parse('2025-03-05T14:05:00Z');
    expect(bucketSpan('1h', start, 60)).toBe(`${clock.format(new Date(start))}–${clock.format(new Date(start + 60_000))}`);
  });

  it('the week range: the start carries its weekday, the end only the clock', () => {
    const start = Date.parse('2025-03-04T12:00:00Z');
    expect(bucketSpan('7d', start, 6 * 3600)).toBe(`${dayClock.format(new Date(start))}–${clock.format(new Date(start + 6 * 3600_000))}`);
  });

  it('start and end are joined by an en dash, no spaces', () => {
    const span = bucketSpan('24h', Date.parse('2025-03-05T10:00:00Z'), 3600);
    expect(span.split('–')).toHaveLength(2);
    expect(span).not.toMatch(/ – /);
  });
});

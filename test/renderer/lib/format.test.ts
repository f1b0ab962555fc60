import { afterAll, describe, expect, it, vi } from 'vitest';

// formatWhen's clock form decides "today" by the local calendar day, and the clock formatters are built when the module loads:
// pin the time zone before the import (vi.hoisted runs above the imports).
const previousTz = vi.hoisted(() => {
  const previous = process.env.TZ;
  process.env.TZ = 'UTC';
  return previous;
});
afterAll(() => {
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
});

import { formatDuration, formatElapsed, formatLatency, formatWhen } from '../../../renderer/src/lib/format.js';

/** Exact strings are checked only in the locale they were written for; other locales get the structural checks. */
const US = new Intl.DateTimeFormat().resolvedOptions().locale === 'en-US';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.parse('2025-03-05T18:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const ahead = (ms: number) => new Date(NOW + ms).toISOString();

describe('formatDuration', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a negative figure', -1],
  ])('%s has nothing to show: an em dash', (_, value) => {
    expect(formatDuration(value)).toBe('—');
  });

  it('0 ms reads "< 0.1 ms"', () => {
    expect(formatDuration(0)).toBe('< 0.1 ms');
  });

  it('under a tenth of a millisecond reads "< 0.1 ms"', () => {
    expect(formatDuration(0.05)).toBe('< 0.1 ms');
    expect(formatDuration(0.0999)).toBe('< 0.1 ms');
  });

  it('sub-millisecond figures have one decimal', () => {
    expect(formatDuration(0.1)).toBe('0.1 ms');
    expect(formatDuration(0.4)).toBe('0.4 ms');
    expect(formatDuration(0.94)).toBe('0.9 ms');
  });

  it('a sub-millisecond figure that rounds to 1 reads "1 ms", not "1.0 ms"', () => {
    expect(formatDuration(0.96)).toBe('1 ms');
    expect(formatDuration(0.999)).toBe('1 ms');
  });

  it('1 ms to 999 ms are whole milliseconds', () => {
    expect(formatDuration(1)).toBe('1 ms');
    expect(formatDuration(12)).toBe('12 ms');
    expect(formatDuration(12.5)).toBe('13 ms');
    expect(formatDuration(999)).toBe('999 ms');
    expect(formatDuration(999.4)).toBe('999 ms');
  });

  it('999.5 ms and above round into seconds, never "1000 ms"', () => {
    expect(formatDuration(999.5)).toBe('1.00 s');
    expect(formatDuration(999.9)).toBe('1.00 s');
  });

  it('1 s to 10 s have two decimals', () => {
    expect(formatDuration(1000)).toBe('1.00 s');
    expect(formatDuration(1240)).toBe('1.24 s');
    expect(formatDuration(9994)).toBe('9.99 s');
  });

  it('just under 10 s rounds to "10.0 s", never "10.00 s"', () => {
    expect(formatDuration(9999)).toBe('10.0 s');
  });

  it('10 s to 60 s have one decimal', () => {
    expect(formatDuration(10_000)).toBe('10.0 s');
    expect(formatDuration(42_345)).toBe('42.3 s');
    expect(formatDuration(59_940)).toBe('59.9 s');
  });

  it('just under a minute rounds to "1 m 00 s", never "60.0 s"', () => {
    expect(formatDuration(59_950)).toBe('1 m 00 s');
    expect(formatDuration(59_999)).toBe('1 m 00 s');
  });

  it('minutes and zero-padded seconds', () => {
    expect(formatDuration(MINUTE)).toBe('1 m 00 s');
    expect(formatDuration(MINUTE + 1000)).toBe('1 m 01 s');
    expect(formatDuration(2 * MINUTE + 5000)).toBe('2 m 05 s');
    expect(formatDuration(HOUR - 501)).toBe('59 m 59 s');
  });

  it('just under an hour rounds to "1 h 00 m", never "60 m 00 s"', () => {
    expect(formatDuration(HOUR - 500)).toBe('1 h 00 m');
  });

  it('hours and zero-padded minutes; the seconds are dropped', () => {
    expect(formatDuration(HOUR)).toBe('1 h 00 m');
    expect(formatDuration(HOUR + 2 * MINUTE + 59 * SECOND)).toBe('1 h 02 m');
    expect(formatDuration(2 * DAY)).toBe('48 h 00 m');
  });

  it('every figure from 0 to 3 h fits one of the documented shapes (a sweep of 20 000 values)', () => {
    const shapes = [/^< 0\.1 ms$/, /^0\.\d ms$/, /^[1-9]\d{0,2} ms$/, /^\d\.\d\d s$/, /^[1-5]\d\.\d s$/, /^[1-5]?\d m [0-5]\d s$/, /^\d+ h [0-5]\d m$/];
    for (let i = 0; i < 20_000; i++) {
      // Denser where the units change: a geometric sweep from 0.01 ms to 3 h.
      const ms = 0.01 * Math.pow((3 * HOUR) / 0.01, i / 19_999);
      const text = formatDuration(ms);
      expect(
        shapes.some((shape) => shape.test(text)),
        `${ms} → ${text}`,
      ).toBe(true);
    }
  });
});

describe('formatLatency', () => {
  it('keeps the decimals that matter below 10 ms: "0.42 ms", "4.2 ms"', () => {
    expect(formatLatency(0.42)).toBe('0.42 ms');
    expect(formatLatency(4.2)).toBe('4.2 ms');
  });

  it('0 reads "0 ms"; null and undefined an em dash', () => {
    expect(formatLatency(0)).toBe('0 ms');
    expect(formatLatency(null)).toBe('—');
    expect(formatLatency(undefined)).toBe('—');
  });

  it('from 10 ms on, reads as formatDuration', () => {
    for (const ms of [10, 123, 1234, 61_000, 2 * HOUR]) expect(formatLatency(ms)).toBe(formatDuration(ms));
  });
});

describe('formatElapsed', () => {
  it('whole seconds under a minute, rounded down as a clock ticks', () => {
    expect(formatElapsed(0)).toBe('0 s');
    expect(formatElapsed(7_999)).toBe('7 s');
    expect(formatElapsed(59_999)).toBe('59 s');
  });

  it('from a minute on, reads as formatDuration', () => {
    expect(formatElapsed(MINUTE)).toBe('1 m 00 s');
    expect(formatElapsed(HOUR)).toBe('1 h 00 m');
  });
});

describe('formatWhen: relative', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an empty string', ''],
    ['not a date', 'yesterday-ish'],
  ])('%s has nothing to show: an em dash', (_, iso) => {
    expect(formatWhen(iso, 'relative', NOW)).toBe('—');
  });

  it('the same instant is "just now"', () => {
    expect(formatWhen(ago(0), 'relative', NOW)).toBe('just now');
  });

  it('under 5 s either way is "just now"', () => {
    expect(formatWhen(ago(4_999), 'relative', NOW)).toBe('just now');
    expect(formatWhen(ahead(4_999), 'relative', NOW)).toBe('just now');
  });

  it('seconds in the past, rounded down', () => {
    expect(formatWhen(ago(5 * SECOND), 'relative', NOW)).toBe('5 s ago');
    expect(formatWhen(ago(42 * SECOND), 'relative', NOW)).toBe('42 s ago');
    expect(formatWhen(ago(59_999), 'relative', NOW)).toBe('59 s ago');
  });

  it('minutes in the past, from 60 s', () => {
    expect(formatWhen(ago(MINUTE), 'relative', NOW)).toBe('1 min ago');
    expect(formatWhen(ago(5 * MINUTE + 59 * SECOND), 'relative', NOW)).toBe('5 min ago');
    expect(formatWhen(ago(HOUR - 1), 'relative', NOW)).toBe('59 min ago');
  });

  it('hours in the past, from 60 min', () => {
    expect(formatWhen(ago(HOUR), 'relative', NOW)).toBe('1 h ago');
    expect(formatWhen(ago(DAY - 1), 'relative', NOW)).toBe('23 h ago');
  });

  it('days in the past, from 24 h', () => {
    expect(formatWhen(ago(DAY), 'relative', NOW)).toBe('1 d ago');
    expect(formatWhen(ago(400 * DAY), 'relative', NOW)).toBe('400 d ago');
  });

  it('times ahead of now read "in …", with the same units', () => {
    expect(formatWhen(ahead(5 * SECOND), 'relative', NOW)).toBe('in 5 s');
    expect(formatWhen(ahead(5 * MINUTE), 'relative', NOW)).toBe('in 5 min');
    expect(formatWhen(ahead(3 * HOUR), 'relative', NOW)).toBe('in 3 h');
    expect(formatWhen(ahead(2 * DAY), 'relative', NOW)).toBe('in 2 d');
  });

  it('a time with an offset is compared as the instant it names', () => {
    expect(formatWhen('2025-03-05T18:00:00+01:00', 'relative', NOW)).toBe('1 h ago');
  });

  it('now defaults to the current time', () => {
    expect(formatWhen(new Date(Date.now() - 2 * MINUTE - 10 * SECOND).toISOString(), 'relative')).toBe('2 min ago');
  });
});

describe('formatWhen: clock (time zone pinned to UTC)', () => {
  // The person's locale decides the order and the 12- or 24-hour clock.
  const clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
  const dayAndClock = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit' });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an empty string', ''],
    ['not a date', 'not a date'],
  ])('%s has nothing to show: an em dash', (_, iso) => {
    expect(formatWhen(iso, 'clock', NOW)).toBe('—');
  });

  it('a time earlier today is the clock time only', () => {
    const iso = '2025-03-05T14:03:27Z';
    expect(formatWhen(iso, 'clock', NOW)).toBe(clock.format(new Date(iso)));
  });

  it.runIf(US)('a time earlier today reads "2:03:27 PM" in en-US, the locale\'s own clock', () => {
    expect(formatWhen('2025-03-05T14:03:27Z', 'clock', NOW)).toBe('2:03:27 PM');
  });

  it.runIf(US)('half past midnight reads "12:30:00 AM" in en-US, never "0:30" or "24:30"', () => {
    expect(formatWhen('2025-03-05T00:30:00Z', 'clock', NOW)).toBe('12:30:00 AM');
  });

  it('a time on another day has the day in front', () => {
    const iso = '2025-03-04T14:03:27Z';
    expect(formatWhen(iso, 'clock', NOW)).toBe(dayAndClock.format(new Date(iso)));
    expect(formatWhen(iso, 'clock', NOW)).not.toBe(clock.format(new Date(iso)));
  });

  it.runIf(US)('a time yesterday reads "Mar 4, 2:03:27 PM"', () => {
    expect(formatWhen('2025-03-04T14:03:27Z', 'clock', NOW)).toBe('Mar 4, 2:03:27 PM');
  });

  it('a time later today (ahead of now) is still today', () => {
    const iso = '2025-03-05T23:59:59Z';
    expect(formatWhen(iso, 'clock', NOW)).toBe(clock.format(new Date(iso)));
  });

  it('a time on a later day has the day in front', () => {
    const iso = '2025-03-06T00:00:00Z';
    expect(formatWhen(iso, 'clock', NOW)).toBe(dayAndClock.format(new Date(iso)));
  });

  it('the day changes at local midnight: one second apart across it are different days', () => {
    const justAfter = Date.parse('2025-03-06T00:00:01Z');
    expect(formatWhen('2025-03-05T23:59:59Z', 'clock', justAfter)).toBe(dayAndClock.format(new Date('2025-03-05T23:59:59Z')));
    expect(formatWhen('2025-03-06T00:00:00Z', 'clock', justAfter)).toBe(clock.format(new Date('2025-03-06T00:00:00Z')));
  });

  it('the same day in another year is not today', () => {
    const iso = '2024-03-05T14:03:27Z';
    expect(formatWhen(iso, 'clock', NOW)).toBe(dayAndClock.format(new Date(iso)));
  });
});

describe('formatWhen: full (time zone pinned to UTC)', () => {
  const full = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit' });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an empty string', ''],
    ['not a date', '2025-13-45T99:00:00Z'],
  ])('%s has nothing to show: an em dash', (_, iso) => {
    expect(formatWhen(iso, 'full')).toBe('—');
  });

  it('the full date and time in the locale', () => {
    const iso = '2025-03-05T14:03:27Z';
    expect(formatWhen(iso, 'full')).toBe(full.format(new Date(iso)));
  });

  it.runIf(US)('reads "Mar 5, 2025, 2:03:27 PM" in en-US', () => {
    expect(formatWhen('2025-03-05T14:03:27Z', 'full')).toBe('Mar 5, 2025, 2:03:27 PM');
  });

  it('does not depend on now: a date years away is shown in full', () => {
    expect(formatWhen('1999-12-31T23:59:59Z', 'full')).toBe(full.format(new Date('1999-12-31T23:59:59Z')));
  });
});

describe('formatWhen: one family of formats', () => {
  it('the full time of a moment holds its clock time, written the same way', () => {
    const iso = '2025-03-05T14:03:27Z';
    expect(formatWhen(iso, 'full')).toContain(formatWhen(iso, 'clock', NOW));
  });

  it('takes epoch ms and Dates as well as ISO strings', () => {
    const iso = '2025-03-05T14:03:27Z';
    expect(formatWhen(Date.parse(iso), 'full')).toBe(formatWhen(iso, 'full'));
    expect(formatWhen(new Date(iso), 'clock', NOW)).toBe(formatWhen(iso, 'clock', NOW));
    expect(formatWhen(Date.parse(iso), 'relative', NOW)).toBe('3 h ago');
  });

  it.runIf(US)('the chart forms read "2:05 PM", "Tue 2:05 PM" and "Mar 4" in en-US', () => {
    expect(formatWhen('2025-03-04T14:05:00Z', 'minute')).toBe('2:05 PM');
    expect(formatWhen('2025-03-04T14:05:00Z', 'weekday-minute')).toBe('Tue 2:05 PM');
    expect(formatWhen('2025-03-04T14:05:00Z', 'day')).toBe('Mar 4');
  });
});

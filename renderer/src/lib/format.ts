// Human-readable durations and times, shared by the views. Everything here is pure: times in the person's locale
// (formatWhen, the one way a time is shown), durations fixed so columns line up.

/** "< 0.1 ms", "0.4 ms", "12 ms", "1.24 s", "2 m 05 s", "1 h 02 m"; an em dash when there is nothing to show. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 0.1) return '< 0.1 ms';
  // Each unit is judged after rounding, so 999.7 ms reads "1.00 s", not "1000 ms" (and 59.97 s "1 m 00 s").
  if (Number(ms.toFixed(1)) < 1) return `${ms.toFixed(1)} ms`;
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (Number(s.toFixed(2)) < 10) return `${s.toFixed(2)} s`;
  if (Number(s.toFixed(1)) < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m} m ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}

/**
 * Latency figures, where a tenth of a millisecond matters (a cached lookup against a shell command): "0 ms",
 * "0.42 ms", "4.2 ms", then as formatDuration.
 */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === 0) return '0 ms';
  if (typeof ms === 'number' && ms > 0 && ms < 10) return ms < 1 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`;
  return formatDuration(ms);
}

/** How long an open call has run, for a clock that ticks once a second: "7 s", then as formatDuration. */
export function formatElapsed(ms: number): string {
  return ms >= 0 && ms < 60_000 ? `${Math.floor(ms / 1000)} s` : formatDuration(ms);
}

/**
 * How a time is shown: `relative` "5 min ago" (the exact time on hover); `clock` the time of day, with the day in
 * front when it is not today; `full` date and time; `minute` and `weekday-minute` a time of day to the minute, and
 * `day` a date, for a chart's axis and its hover readout.
 */
export type TimeForm = 'relative' | 'clock' | 'full' | 'minute' | 'weekday-minute' | 'day';

// One family of formats in the person's own locale (the browser's: `undefined`): its order of day and month, its
// 12- or 24-hour clock. Built once; formatting with a ready Intl.DateTimeFormat is cheap, building one is not.
const TIME_OF_DAY = { hour: 'numeric', minute: '2-digit', second: '2-digit' } as const;
const FORMATS = {
  clock: new Intl.DateTimeFormat(undefined, TIME_OF_DAY),
  dayAndClock: new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', ...TIME_OF_DAY }),
  full: new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', ...TIME_OF_DAY }),
  minute: new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' }),
  'weekday-minute': new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: 'numeric', minute: '2-digit' }),
  day: new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' }),
};

/**
 * Every time the dashboard shows goes through here, so all of them read alike. `at` is an ISO 8601 string, epoch
 * ms or a Date; `now` is the clock "today" and "ago" count from. An em dash when there is no time.
 */
export function formatWhen(at: string | number | Date | null | undefined, form: TimeForm, now: number = Date.now()): string {
  const date = at === null || at === undefined ? undefined : new Date(at);
  if (!date || Number.isNaN(date.getTime())) return '—';
  switch (form) {
    case 'relative':
      return relative(date.getTime(), now);
    case 'clock':
      return (date.toDateString() === new Date(now).toDateString() ? FORMATS.clock : FORMATS.dayAndClock).format(date);
    default:
      return FORMATS[form].format(date);
  }
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago" (or "in 5 min" for times ahead of `now`). */
function relative(at: number, now: number): string {
  const diff = now - at;
  const ahead = diff < 0;
  const s = Math.abs(diff) / 1000;
  if (s < 5) return 'just now';
  let text: string;
  if (s < 60) text = `${Math.floor(s)} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 86_400) text = `${Math.floor(s / 3600)} h`;
  else text = `${Math.floor(s / 86_400)} d`;
  return ahead ? `in ${text}` : `${text} ago`;
}

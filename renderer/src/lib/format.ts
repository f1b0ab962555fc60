// Human-readable durations and times, shared by the views. Everything here is pure and locale-aware where a person
// reads it (clock times), fixed where columns must line up (durations).

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

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago" (or "in 5 min" for times ahead of `now`). */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  const at = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(at)) return '—';
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

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
const dayAndClock = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The clock time ("14:03:27"), with the day in front when it is not today. */
export function formatTime(iso: string | null | undefined, now: number = Date.now()): string {
  const at = iso ? new Date(iso) : undefined;
  if (!at || Number.isNaN(at.getTime())) return '—';
  return at.toDateString() === new Date(now).toDateString() ? clock.format(at) : dayAndClock.format(at);
}

/** The full date and time, for tooltips and detail panes. */
export function formatDateTime(iso: string | null | undefined): string {
  const at = iso ? new Date(iso) : undefined;
  if (!at || Number.isNaN(at.getTime())) return '—';
  return full.format(at);
}

import { ToolError } from '../../errors.js';
import { defineTool } from '../types.js';

interface GetTimeArgs {
  timezone?: string;
}

export interface TimeDescription {
  timezone: string;
  /** Local wall-clock time with its numeric offset, e.g. 2026-11-29T22:03:04.123+08:00. */
  iso: string;
  utc: string;
  unix: number;
  unix_ms: number;
  utc_offset: string;
  is_dst: boolean;
  weekday: string;
}

export const getTimeTool = defineTool<GetTimeArgs, TimeDescription>({
  name: 'get_time',
  description:
    'Get the current date and time, in this machine\'s time zone or any IANA time zone. Use it whenever you need ' +
    'today\'s date, the current time, the weekday, or the time somewhere else ("what time is it in Tokyo?"); do not ' +
    'guess. Returns `{ timezone, iso, utc, unix, unix_ms, utc_offset, is_dst, weekday }`: iso is the local time with ' +
    'its UTC offset (e.g. "2026-11-29T22:03:04.123+08:00"), utc the same instant in UTC, unix the seconds since ' +
    '1970-01-01 UTC, is_dst whether daylight saving time is in effect there now, weekday the English day name.',
  parameters: {
    type: 'object',
    properties: {
      timezone: {
        type: 'string',
        description:
          'IANA time zone name such as "Europe/London", "America/New_York", "Asia/Shanghai" or "UTC". ' +
          'Omit it for the time zone of the machine Pincer runs on.',
        maxLength: 64,
      },
    },
    required: [],
    additionalProperties: false,
  },
  outputSchema: {
  type: 'object',
  properties: {
    timezone: { type: 'string' },
    iso: { type: 'string' },
    utc: { type: 'string' },
    unix: { type: 'integer' },
    unix_ms: { type: 'integer' },
    utc_offset: { type: 'string' },
    is_dst: { type: 'boolean' },
    weekday: { type: 'string' },
  },
  required: ['timezone', 'iso', 'utc', 'unix', 'unix_ms', 'utc_offset', 'is_dst', 'weekday'],
  },
  category: 'time',
  risk: 'safe',
  annotations: {
    title: 'Current time',
    readOnlyHint: true,
    destructiveHint: false,
    // Not idempotent: the answer changes every millisecond, so it must never be cached.
    idempotentHint: false,
    openWorldHint: false,
  },
  timeoutMs: 2_000,
  handler(args) {
    if (args.timezone !== undefined && typeof args.timezone !== 'string') {
      throw new ToolError('INVALID_TIMEZONE', 'timezone must be a string such as "Europe/London".');
    }
    const timezone = args.timezone?.trim() || systemTimeZone();
    return describeInstant(new Date(), timezone);
  },
});

export function systemTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Describes one instant in one IANA zone; the handler passes `new Date()`, tests pin the instant. */
export function describeInstant(date: Date, timezone: string): TimeDescription {
  const formatter = zoneFormatter(timezone);
  const local = wallClock(formatter, date);
  const offset = offsetSeconds(local, date);
  // Standard time is the smaller of the January and July offsets, which also holds south of the equator.
  const standard = Math.min(
    offsetAt(formatter, new Date(Date.UTC(local.year, 0, 1, 12))),
    offsetAt(formatter, new Date(Date.UTC(local.year, 6, 1, 12))),
  );
  const ms = date.getTime();
  const utcOffset = formatOffset(offset);
  return {
    timezone: displayName(timezone, formatter.resolvedOptions().timeZone),
    iso:
      `${pad(local.year, 4)}-${pad(local.month)}-${pad(local.day)}T${pad(local.hour)}:${pad(local.minute)}:` +
      `${pad(local.second)}.${pad(date.getUTCMilliseconds(), 3)}${utcOffset}`,
    utc: date.toISOString(),
    unix: Math.floor(ms / 1000),
    unix_ms: ms,
    utc_offset: utcOffset,
    is_dst: offset > standard,
    weekday: local.weekday,
  };
}

function zoneFormatter(timezone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      weekday: 'long',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw new ToolError(
      'INVALID_TIMEZONE',
      `Unknown time zone ${JSON.stringify(timezone)}. Use an IANA name such as "Europe/London" or "Asia/Shanghai".`,
      { timezone },
    );
  }
}

/** ICU canonicalizes to old names (Asia/Kolkata → Asia/Calcutta); echo the caller's name, only fixing its case. */
function displayName(requested: string, resolved: string): string {
  return requested.toLowerCase() === resolved.toLowerCase() ? resolved : requested;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: string;
}

function wallClock(formatter: Intl.DateTimeFormat, date: Date): WallClock {
  const parts: Record<string, string> = {};
  for (const { type, value } of formatter.formatToParts(date)) parts[type] = value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday ?? '',
  };
}

function offsetAt(formatter: Intl.DateTimeFormat, date: Date): number {
  return offsetSeconds(wallClock(formatter, date), date);
}

/** The zone's UTC offset at `date`: its wall-clock time there read as if it were UTC, minus the instant. */
function offsetSeconds(local: WallClock, date: Date): number {
  const asUtc = new Date(0);
  asUtc.setUTCFullYear(local.year, local.month - 1, local.day);
  asUtc.setUTCHours(local.hour, local.minute, local.second, 0);
  const wholeSeconds = Math.floor(date.getTime() / 1000) * 1000;
  return Math.round((asUtc.getTime() - wholeSeconds) / 1000);
}

/** "+05:45"; historical local mean times keep their seconds ("-00:01:15"). */
function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const abs = Math.abs(seconds);
  const hhmm = `${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor(abs / 60) % 60)}`;
  return abs % 60 ? `${hhmm}:${pad(abs % 60)}` : hhmm;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

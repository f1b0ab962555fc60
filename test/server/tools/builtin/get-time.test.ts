import { describe, it, expect } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { describeInstant, getTimeTool, systemTimeZone } from '../../../../server/tools/builtin/get-time.js';

const ctx = () => ({ signal: new AbortController().signal, callId: 'c_test', client: 'test' });

const at = (iso: string) => new Date(iso);
const JULY = at('2026-07-15T12:00:00.123Z');
const JANUARY = at('2026-01-15T12:00:00.000Z');

function failure(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

describe('get_time: declaration', () => {
  it('is safe and read-only but not idempotent, and declares no cache', () => {
    expect(getTimeTool.name).toBe('get_time');
    expect(getTimeTool.risk).toBe('safe');
    expect(getTimeTool.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(getTimeTool.cache).toBeUndefined();
    expect(getTimeTool.parameters).toMatchObject({ required: [], additionalProperties: false });
  });
});

describe('get_time: describeInstant', () => {
  it('gives the local time with its offset, as in the spec example', () => {
    expect(describeInstant(at('2026-11-29T14:03:04.123Z'), 'Asia/Shanghai')).toEqual({
      timezone: 'Asia/Shanghai',
      iso: '2026-11-29T22:03:04.123+08:00',
      utc: '2026-11-29T14:03:04.123Z',
      unix: 1_795_960_984,
      unix_ms: 1_795_960_984_123,
      utc_offset: '+08:00',
      is_dst: false,
      weekday: 'Sunday',
    });
  });

  it('reports daylight saving time in America/New_York in July', () => {
    expect(describeInstant(JULY, 'America/New_York')).toMatchObject({
      iso: '2026-07-15T08:00:00.123-04:00',
      utc_offset: '-04:00',
      is_dst: true,
      weekday: 'Wednesday',
    });
  });

  it('reports standard time in America/New_York in January', () => {
    expect(describeInstant(JANUARY, 'America/New_York')).toMatchObject({
      iso: '2026-01-15T07:00:00.000-05:00',
      utc_offset: '-05:00',
      is_dst: false,
      weekday: 'Thursday',
    });
  });

  it('reports British Summer Time in Europe/London in July and GMT in January', () => {
    expect(describeInstant(JULY, 'Europe/London')).toMatchObject({ utc_offset: '+01:00', is_dst: true });
    expect(describeInstant(JANUARY, 'Europe/London')).toMatchObject({ utc_offset: '+00:00', is_dst: false });
  });

  it('treats January as summer south of the equator (Australia/Sydney)', () => {
    expect(describeInstant(JANUARY, 'Australia/Sydney')).toMatchObject({ utc_offset: '+11:00', is_dst: true });
    expect(describeInstant(JULY, 'Australia/Sydney')).toMatchObject({ utc_offset: '+10:00', is_dst: false });
  });

  it("handles Australia/Lord_Howe's 30-minute daylight saving", () => {
    expect(describeInstant(JANUARY, 'Australia/Lord_Howe')).toMatchObject({ utc_offset: '+11:00', is_dst: true });
    expect(describeInstant(JULY, 'Australia/Lord_Howe')).toMatchObject({ utc_offset: '+10:30', is_dst: false });
  });

  it('handles the half-hour zone Asia/Kolkata, which has no DST, and keeps its modern name', () => {
    expect(describeInstant(JULY, 'Asia/Kolkata')).toMatchObject({
      timezone: 'Asia/Kolkata',
      iso: '2026-07-15T17:30:00.123+05:30',
      utc_offset: '+05:30',
      is_dst: false,
    });
  });

  it('handles the 45-minute zone Asia/Kathmandu', () => {
    expect(describeInstant(JANUARY, 'Asia/Kathmandu')).toMatchObject({
      timezone: 'Asia/Kathmandu',
      iso: '2026-01-15T17:45:00.000+05:45',
      utc_offset: '+05:45',
      is_dst: false,
    });
  });

  it('handles negative half-hour offsets with DST (America/St_Johns)', () => {
    expect(describeInstant(JULY, 'America/St_Johns')).toMatchObject({ utc_offset: '-02:30', is_dst: true });
    expect(describeInstant(JANUARY, 'America/St_Johns')).toMatchObject({ utc_offset: '-03:30', is_dst: false });
  });

  it('handles a 45-minute zone with DST (Pacific/Chatham)', () => {
    expect(describeInstant(JANUARY, 'Pacific/Chatham')).toMatchObject({ utc_offset: '+13:45', is_dst: true });
    expect(describeInstant(JULY, 'Pacific/Chatham')).toMatchObject({ utc_offset: '+12:45', is_dst: false });
  });

  it('crosses the date line: Kiritimati is a day ahead of Pago Pago at the same instant', () => {
    const instant = at('2026-07-15T23:30:00Z');
    expect(describeInstant(instant, 'Pacific/Kiritimati')).toMatchObject({
      iso: '2026-07-16T13:30:00.000+14:00',
      weekday: 'Thursday',
    });
    expect(describeInstant(instant, 'Pacific/Pago_Pago')).toMatchObject({
      iso: '2026-07-15T12:30:00.000-11:00',
      weekday: 'Wednesday',
    });
  });

  it('springs forward in New York: 01:59:59 EST is followed by 03:00:00 EDT', () => {
    expect(describeInstant(at('2026-03-08T06:59:59Z'), 'America/New_York')).toMatchObject({
      iso: '2026-03-08T01:59:59.000-05:00',
      is_dst: false,
    });
    expect(describeInstant(at('2026-03-08T07:00:00Z'), 'America/New_York')).toMatchObject({
      iso: '2026-03-08T03:00:00.000-04:00',
      is_dst: true,
    });
  });

  it('falls back in New York: 01:30 happens twice, first in EDT then in EST', () => {
    expect(describeInstant(at('2026-11-01T05:30:00Z'), 'America/New_York')).toMatchObject({
      iso: '2026-11-01T01:30:00.000-04:00',
      is_dst: true,
    });
    expect(describeInstant(at('2026-11-01T06:30:00Z'), 'America/New_York')).toMatchObject({
      iso: '2026-11-01T01:30:00.000-05:00',
      is_dst: false,
    });
  });

  it('switches Europe/London to BST at 01:00 UTC on the last Sunday of March', () => {
    expect(describeInstant(at('2026-03-29T00:59:59Z'), 'Europe/London')).toMatchObject({
      iso: '2026-03-29T00:59:59.000+00:00',
      is_dst: false,
    });
    expect(describeInstant(at('2026-03-29T01:00:00Z'), 'Europe/London')).toMatchObject({
      iso: '2026-03-29T02:00:00.000+01:00',
      is_dst: true,
    });
  });

  it('writes local midnight as 00, not 24', () => {
    expect(describeInstant(at('2026-01-01T05:00:00Z'), 'America/New_York').iso).toBe('2026-01-01T00:00:00.000-05:00');
  });

  it('gives UTC a +00:00 offset and fixes the case of "utc"', () => {
    expect(describeInstant(JULY, 'utc')).toMatchObject({
      timezone: 'UTC',
      iso: '2026-07-15T12:00:00.123+00:00',
      utc_offset: '+00:00',
      is_dst: false,
    });
  });

  it('fixes the case of a lower-case IANA name', () => {
    expect(describeInstant(JULY, 'europe/london').timezone).toBe('Europe/London');
  });

  it('rounds unix seconds down before 1970', () => {
    expect(describeInstant(at('1969-12-31T23:59:59.500Z'), 'UTC')).toMatchObject({ unix: -1, unix_ms: -500 });
  });

  it.each(['America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns'])(
    'gives an iso string in %s that names the same instant as unix_ms',
    (zone) => {
      for (const instant of [JULY, JANUARY, at('2026-03-08T07:00:00Z'), at('2026-11-01T06:30:00Z')]) {
        const result = describeInstant(instant, zone);
        expect(new Date(result.iso).getTime()).toBe(result.unix_ms);
        expect(result.utc).toBe(instant.toISOString());
      }
    },
  );

  it('refuses an unknown zone with a hint', () => {
    const error = failure(() => describeInstant(JULY, 'Mars/Base'));
    expect(error.errorName).toBe('INVALID_TIMEZONE');
    expect(error.message).toBe(
      'Unknown time zone "Mars/Base". Use an IANA name such as "Europe/London" or "Asia/Shanghai".',
    );
  });

  it.each(['+05:30', 'Europe/', 'Asia/Shanghai; DROP TABLE'])('refuses %j', (zone) => {
    expect(failure(() => describeInstant(JULY, zone)).errorName).toBe('INVALID_TIMEZONE');
  });
});

describe('get_time: handler', () => {
  it('uses the system time zone when none is given', async () => {
    const before = Date.now();
    const result = await getTimeTool.handler({}, ctx());
    const after = Date.now();
    expect(result.timezone).toBe(systemTimeZone());
    expect(result.unix_ms).toBeGreaterThanOrEqual(before);
    expect(result.unix_ms).toBeLessThanOrEqual(after);
    expect(result.unix).toBe(Math.floor(result.unix_ms / 1000));
  });

  it('treats an empty time zone as the system zone', async () => {
    expect((await getTimeTool.handler({ timezone: '' }, ctx())).timezone).toBe(systemTimeZone());
  });

  it('describes the current time in the requested zone', async () => {
    const result = await getTimeTool.handler({ timezone: 'Asia/Kathmandu' }, ctx());
    expect(result).toMatchObject({ timezone: 'Asia/Kathmandu', utc_offset: '+05:45', is_dst: false });
    expect(result.iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:45$/);
  });

  it('refuses an unknown zone', async () => {
    await expect(async () => getTimeTool.handler({ timezone: 'Mars/Base' }, ctx())).rejects.toMatchObject({
      errorName: 'INVALID_TIMEZONE',
    });
  });

  it('refuses a non-string zone', async () => {
    await expect(async () => getTimeTool.handler({ timezone: 8 as unknown as string }, ctx())).rejects.toMatchObject({
      errorName: 'INVALID_TIMEZONE',
    });
  });
});

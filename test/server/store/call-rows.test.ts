import { describe, expect, it } from 'vitest';
import { ROW_COLUMNS, rowValues, toRecord, toRow } from '../../../server/store/call-rows.js';
import type { CallRecord } from '../../../server/store/calls.js';

const call: CallRecord = {
  id: 'c_test1',
  tool: 'calculate',
  client: 'default',
  via: 'http',
  arguments: { expression: '1+2' },
  result: 3,
  status: 'succeeded',
  error: null,
  http_status: 200,
  decision: 'allow',
  rule: 'risk:safe',
  reason: 'safe tool',
  cache_hit: false,
  started_at: '2026-12-02T10:00:00.000Z',
  finished_at: '2026-12-02T10:00:00.005Z',
  duration_ms: 5,
  recovered: true,
  recovery: { shape: 'hermes' },
};

describe('call rows', () => {
  it('binds every column of a row, in the order ROW_COLUMNS names them', () => {
    const row = toRow(call);
    expect([...ROW_COLUMNS].sort()).toEqual(Object.keys(row).sort());
    expect(rowValues(row)).toEqual(ROW_COLUMNS.map((column) => row[column]));
  });

  it('reads back the record it wrote', () => {
    expect(toRecord({ seq: 1, ...toRow(call) })).toEqual(call);
  });
});

import type { CallRecord } from '../../server/store/index.js';

/** A finished, successful `calculate` call as the store keeps it; override what a test is about. */
export function finishedCall(id: string, startedAt: string, overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    id,
    tool: 'calculate',
    client: 'default',
    via: 'http',
    arguments: { expression: '1+1' },
    result: 2,
    status: 'succeeded',
    error: null,
    http_status: 200,
    decision: 'allow',
    rule: 'risk:safe',
    reason: 'calculate is a safe tool.',
    cache_hit: false,
    started_at: startedAt,
    finished_at: startedAt,
    duration_ms: 1.5,
    ...overrides,
  };
}

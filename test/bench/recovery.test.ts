import { describe, expect, it } from 'vitest';
import { benchRecovery, recoveryLines, recoveryVerdicts } from '../../bench/recovery.js';

/** The recovery bench runs end to end (a short run; the bar itself is judged by `npm run bench`, never here). */
describe('bench: tool-call recovery on a plain streamed answer', () => {
  it('times the gate against a pass-through over the same chunks and reports one verdict', () => {
    const result = benchRecovery(5);
    expect(result.chunks).toBeGreaterThan(1000);
    expect(result.passNsPerChunk).toBeGreaterThan(0);
    expect(result.gateNsPerChunk).toBeGreaterThan(0);
    expect(result.ratio).toBeGreaterThan(0);
    expect(recoveryVerdicts(result).map((v) => v.name)).toEqual(['recovery_overhead_ns_per_chunk']);
    expect(recoveryLines(result)).toHaveLength(2);
  });
});

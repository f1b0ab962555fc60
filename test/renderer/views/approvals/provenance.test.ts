import { describe, expect, it } from 'vitest';
import type { Provenance } from '../../../../renderer/src/lib/types.js';
import { provenanceLines, SHOWN } from '../../../../renderer/src/views/approvals/provenance.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const entry = (over: Partial<Provenance> = {}): Provenance => ({
  path: '/p/app/Makefile',
  by: 'make',
  client: 'cursor',
  tool: 'file_write',
  call_id: 'c_1',
  at: new Date(NOW - 3 * 60_000).toISOString(),
  ...over,
});

describe('provenanceLines (the approval card)', () => {
  it('says which file, run by what, written by which client, how long ago, with which call', () => {
    expect(provenanceLines([entry()], NOW).lines).toEqual([
      { path: '/p/app/Makefile', by: 'make', how: 'written by', client: 'cursor', when: '3 min ago', at: entry().at, tool: 'file_write', callId: 'c_1' },
    ]);
  });

  it('a copy into a folder says so, naming the folder', () => {
    expect(provenanceLines([entry({ folder: '/p/app', tool: 'run_shell' })], NOW).lines[0]!.how).toBe('copied into /p/app by');
  });

  it('nothing to show for an approval without provenance (older gateways send none)', () => {
    expect(provenanceLines(undefined, NOW)).toEqual({ lines: [], more: 0 });
    expect(provenanceLines([], NOW)).toEqual({ lines: [], more: 0 });
  });

  it('lists the first few and counts the rest', () => {
    const many = Array.from({ length: SHOWN + 3 }, (_, i) => entry({ call_id: `c_${i}`, path: `/p/app/f${i}` }));
    const shown = provenanceLines(many, NOW);
    expect(shown.lines).toHaveLength(SHOWN);
    expect(shown.more).toBe(3);
  });
});

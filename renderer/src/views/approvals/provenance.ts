// Which client wrote the files a command runs, in words for the approval card. Pure, so the wording is tested
// without a browser.
import { formatWhen } from '../../lib/format';
import type { Provenance } from '../../lib/types';

/** Entries a card lists before it only counts the rest. */
export const SHOWN = 5;

export interface ProvenanceLine {
  path: string;
  /** The command that runs or reads the file (`make`, `npm test`). */
  by: string;
  /** "written by" or "copied into /p/app by": how the client's call put it there. */
  how: string;
  client: string;
  /** "3 min ago", and the time itself. */
  when: string;
  at: string;
  tool: string;
  callId: string;
}

/** One line per file, newest first (as the gateway sends them), the first few only. */
export function provenanceLines(entries: readonly Provenance[] | undefined, now: number): { lines: ProvenanceLine[]; more: number } {
  const list = entries ?? [];
  const lines = list.slice(0, SHOWN).map((p) => ({
    path: p.path,
    by: p.by,
    how: p.folder ? `copied into ${p.folder} by` : 'written by',
    client: p.client,
    when: formatWhen(p.at, 'relative', now),
    at: p.at,
    tool: p.tool,
    callId: p.call_id,
  }));
  return { lines, more: Math.max(0, list.length - SHOWN) };
}

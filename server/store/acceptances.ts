import type { Db } from './db.js';

/** The kinds of tool source whose acceptances are kept (server/contract/sources.ts names the same kinds). */
export type AcceptanceKind = 'plugin' | 'mcp';

/** What the owner accepted of one source (`tool` '') or of one tool of a source, and whether they turned it off. */
export interface Acceptance {
  kind: AcceptanceKind;
  source: string;
  /** '' for the source as a whole. */
  tool: string;
  hash: string;
  /** What the owner looked at when accepting (JSON as the source's adapter wrote it). */
  accepted: unknown;
  /** The owner's rating; null where the source declares its own. */
  risk: string | null;
  disabled: boolean;
  accepted_at: string;
  accepted_by: string;
}

export interface AcceptanceInput {
  kind: AcceptanceKind;
  source: string;
  tool?: string;
  hash: string;
  accepted: unknown;
  risk?: string | null;
  /** Undefined keeps what was there (a disabled plugin stays disabled when accepted again); new ones are enabled. */
  disabled?: boolean;
}

interface Row {
  kind: AcceptanceKind;
  source: string;
  tool: string;
  hash: string;
  accepted: string;
  risk: string | null;
  disabled: number;
  accepted_at: number;
  accepted_by: string;
}

function fromRow(row: Row): Acceptance {
  return {
    kind: row.kind,
    source: row.source,
    tool: row.tool,
    hash: row.hash,
    accepted: JSON.parse(row.accepted) as unknown,
    risk: row.risk,
    disabled: row.disabled === 1,
    accepted_at: new Date(row.accepted_at).toISOString(),
    accepted_by: row.accepted_by,
  };
}

/** The one store of the owner's acceptances of outside tools, for every kind of source. */
export class AcceptanceStore {
  constructor(private readonly db: Db) {}

  get(kind: AcceptanceKind, source: string, tool = ''): Acceptance | undefined {
    const row = this.db.prepare<[string, string, string], Row>('SELECT * FROM acceptances WHERE kind = ? AND source = ? AND tool = ?').get(kind, source, tool);
    return row && fromRow(row);
  }

  /** Every acceptance of one source (or of every source of the kind), by source then tool. */
  list(kind: AcceptanceKind, source?: string): Acceptance[] {
    const rows =
      source === undefined
        ? this.db.prepare<[string], Row>('SELECT * FROM acceptances WHERE kind = ? ORDER BY source, tool').all(kind)
        : this.db.prepare<[string, string], Row>('SELECT * FROM acceptances WHERE kind = ? AND source = ? ORDER BY tool').all(kind, source);
    return rows.map(fromRow);
  }

  /** Records what the owner accepts now (replacing what they accepted before of the same source or tool). */
  put(entry: AcceptanceInput, by: string, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO acceptances (kind, source, tool, hash, accepted, risk, disabled, accepted_at, accepted_by)
         VALUES (@kind, @source, @tool, @hash, @accepted, @risk, @disabled, @now, @by)
         ON CONFLICT (kind, source, tool) DO UPDATE SET hash = excluded.hash, accepted = excluded.accepted, risk = excluded.risk,
           accepted_at = excluded.accepted_at, accepted_by = excluded.accepted_by,
           disabled = CASE WHEN @keepDisabled = 1 THEN acceptances.disabled ELSE excluded.disabled END`,
      )
      .run({
        kind: entry.kind,
        source: entry.source,
        tool: entry.tool ?? '',
        hash: entry.hash,
        accepted: JSON.stringify(entry.accepted),
        risk: entry.risk ?? null,
        disabled: entry.disabled ? 1 : 0,
        keepDisabled: entry.disabled === undefined ? 1 : 0,
        now,
        by,
      });
  }

  /**
   * Records acceptances kept elsewhere before (an older data directory), in one transaction, each only where none is
   * recorded yet: what the owner accepted since is newer. Returns how many were recorded.
   */
  importOld(entries: readonly (AcceptanceInput & { accepted_at: number; accepted_by: string })[]): number {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO acceptances (kind, source, tool, hash, accepted, risk, disabled, accepted_at, accepted_by)
       VALUES (@kind, @source, @tool, @hash, @accepted, @risk, @disabled, @accepted_at, @accepted_by)`,
    );
    return this.db.transaction(() => {
      let count = 0;
      for (const e of entries) {
        count += insert.run({
          kind: e.kind,
          source: e.source,
          tool: e.tool ?? '',
          hash: e.hash,
          accepted: JSON.stringify(e.accepted),
          risk: e.risk ?? null,
          disabled: e.disabled ? 1 : 0,
          accepted_at: e.accepted_at,
          accepted_by: e.accepted_by,
        }).changes;
      }
      return count;
    })();
  }

  /** False when nothing was accepted there (there is nothing to disable or enable). */
  setDisabled(kind: AcceptanceKind, source: string, tool: string, disabled: boolean): boolean {
    return this.db.prepare('UPDATE acceptances SET disabled = ? WHERE kind = ? AND source = ? AND tool = ?').run(disabled ? 1 : 0, kind, source, tool).changes > 0;
  }

  /** Forgets every acceptance of a source (removed: added again, it is new again). */
  forget(kind: AcceptanceKind, source: string): void {
    this.db.prepare('DELETE FROM acceptances WHERE kind = ? AND source = ?').run(kind, source);
  }
}

import type { Db } from './db.js';

export type RuleEffect = 'allow' | 'ask' | 'deny';
export type RuleScope = 'exact' | 'tool' | 'prefix' | 'folder' | 'host';
export const RULE_EFFECTS: readonly RuleEffect[] = ['allow', 'ask', 'deny'];
export const RULE_SCOPES: readonly RuleScope[] = ['exact', 'tool', 'prefix', 'folder', 'host'];

/** A standing grant or denial in the ledger. */
export interface Rule {
  id: string;
  effect: RuleEffect;
  /** A tool name, or "*" for every tool. */
  tool: string;
  scope: RuleScope;
  /** exact: the arguments as canonical JSON; prefix: command words; folder: an absolute path; host: a host name. */
  pattern: string | null;
  note: string | null;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  uses: number;
  last_used_at: string | null;
}

interface RuleRow extends Omit<Rule, 'created_at' | 'expires_at' | 'last_used_at'> {
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const toRule = (row: RuleRow): Rule => ({
  ...row,
  created_at: new Date(row.created_at).toISOString(),
  expires_at: iso(row.expires_at),
  last_used_at: iso(row.last_used_at),
});

export class RuleStore {
  constructor(private readonly db: Db) {}

  add(rule: Omit<Rule, 'uses' | 'last_used_at'>): void {
    this.db
      .prepare(
        `INSERT INTO rules (id, effect, tool, scope, pattern, note, created_by, created_at, expires_at)
         VALUES (@id, @effect, @tool, @scope, @pattern, @note, @created_by, @created_at, @expires_at)`,
      )
      .run({ ...rule, created_at: Date.parse(rule.created_at), expires_at: rule.expires_at === null ? null : Date.parse(rule.expires_at) });
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM rules WHERE id = ?').run(id).changes === 1;
  }

  get(id: string): Rule | undefined {
    const row = this.db.prepare<[string], RuleRow>('SELECT * FROM rules WHERE id = ?').get(id);
    return row ? toRule(row) : undefined;
  }

  list(): Rule[] {
    return this.db.prepare<[], RuleRow>('SELECT * FROM rules ORDER BY created_at, id').all().map(toRule);
  }

  noteUse(id: string, now = Date.now()): void {
    this.db.prepare('UPDATE rules SET uses = uses + 1, last_used_at = ? WHERE id = ?').run(now, id);
  }
}

import type { Rule, RuleEffect, RuleScope } from '../contract/rules.js';
import type { Db } from './db.js';

// A rule is the wire contract's: GET /rules, the `rules` event and the dashboard read this one type.
export type { Rule, RuleEffect, RuleScope } from '../contract/rules.js';
export const RULE_EFFECTS: readonly RuleEffect[] = ['allow', 'ask', 'deny'];
export const RULE_SCOPES: readonly RuleScope[] = ['exact', 'tool', 'prefix', 'folder', 'host'];

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

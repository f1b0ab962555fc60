import { api, describeError } from '../lib/api';
import type { GatewayEvents, Rule, RuleDraft, RuleList, ToolList } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

/** A rule as the owner writes it (POST /rules); the gateway checks and normalizes the pattern. */
export type NewRule = RuleDraft;

/**
 * The grants ledger: standing allow/ask/deny rules with their use counts. Owned by the Rules view, which revokes
 * and adds rules through it.
 */
export class RuleLedger {
  rules = $state.raw<Rule[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** Tool names, offered when the owner writes a rule by hand. */
  toolNames = $state.raw<string[]>([]);
  /** Revoked here: a list fetched while the revoke was on its way must not bring them back. */
  #gone = new Set<string>();

  async load(): Promise<void> {
    try {
      const answer = await api<RuleList>('GET', '/rules');
      // Newest first: the rule just made from an approval is the one the owner looks for.
      const rules = answer.rules.filter((r) => !this.#gone.has(r.id)).sort((a, b) => b.created_at.localeCompare(a.created_at));
      // Reloads follow every call a rule decided: an unchanged answer leaves the table alone.
      if (JSON.stringify(rules) !== JSON.stringify(this.rules)) this.rules = rules;
      this.error = null;
    } catch (error) {
      this.error = describeError(error);
    } finally {
      this.loaded = true;
    }
  }

  async loadToolNames(): Promise<void> {
    try {
      this.toolNames = (await api<ToolList>('GET', '/tools')).tools.map((t) => t.name);
    } catch {
      // Only a convenience for the form: the tool field still takes any name.
    }
  }

  async revoke(id: string): Promise<boolean> {
    try {
      await api('DELETE', `/rules/${encodeURIComponent(id)}`);
      this.#gone.add(id);
      this.rules = this.rules.filter((r) => r.id !== id);
      this.error = null;
      return true;
    } catch (error) {
      this.error = `Could not revoke the rule: ${describeError(error)}`;
      return false;
    }
  }

  /** Adds a rule; answers the gateway's message when it refuses one. */
  async add(rule: NewRule): Promise<string | null> {
    try {
      const created = await api<Rule>('POST', '/rules', rule);
      this.rules = [created, ...this.rules.filter((r) => r.id !== created.id)];
      return null;
    } catch (error) {
      return describeError(error);
    }
  }

  /**
   * Keeps the ledger current while the view is shown: the gateway announces every rule added or removed (from an
   * approval, the CLI or another window), and a call decided by a rule changed its use count.
   */
  listen(feed: GatewayFeed): () => void {
    const decidedByRule = ({ phase, call }: GatewayEvents['call']) => phase !== 'started' && call.rule?.startsWith('rule:') === true;
    return feed.follow(() => void this.load(), { rules: true, call: decidedByRule }, 200);
  }
}

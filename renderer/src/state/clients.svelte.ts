import { api, describeError } from '../lib/api';
import type { ClientBudget, ClientHistoryScope, ClientList, ClientMemoryScope, ClientProfile, ClientToolSet, DefaultToken, HistoryScope, IssuedToken, MemoryScope } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';
import type { SaveResult } from './settings.svelte';

/** A token the gateway has just issued: shown once, then only its hint is ever seen again. */
export type { IssuedToken } from '../lib/types';

/**
 * The clients the owner has issued tokens to (plus the default client), with their tool sets and budgets. The Tools
 * view edits tool sets and budgets; the Settings view issues and revokes tokens.
 */
export class ClientDirectory {
  clients = $state.raw<ClientProfile[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);

  async load(): Promise<void> {
    try {
      this.clients = (await api<ClientList>('GET', '/clients')).clients;
      this.error = null;
    } catch (error) {
      this.error = describeError(error, 'list its clients');
    } finally {
      this.loaded = true;
    }
  }

  /** Sets which tools a client sees and may call: `null` for every enabled tool (its budget is kept). */
  async saveTools(name: string, tools: string[] | null): Promise<SaveResult> {
    try {
      const profile = await api<ClientToolSet>('PUT', `/clients/${encodeURIComponent(name)}/tools`, { tools });
      this.clients = this.clients.map((c) => (c.name === name ? { ...c, tools: profile.tools } : c));
      return { ok: true };
    } catch (error) {
      return { ok: false, message: describeError(error, 'change tool sets') };
    }
  }

  /**
   * Sets a client's budget: at most `maxTools` tools in its lists, search_tools counted (`null`: no limit), with the
   * `pinned` tools always among them; the rest it finds with search_tools. Its tool set is kept.
   */
  async saveBudget(name: string, maxTools: number | null, pinned: string[]): Promise<SaveResult> {
    try {
      const saved = await api<ClientBudget>('PUT', `/clients/${encodeURIComponent(name)}/budget`, {
        max_tools: maxTools,
        pinned,
      });
      this.clients = this.clients.map((c) => (c.name === name ? { ...c, max_tools: saved.max_tools, pinned: saved.pinned } : c));
      return { ok: true };
    } catch (error) {
      return { ok: false, message: describeError(error, 'set budgets') };
    }
  }

  /** Sets whether a client sees only the memories it wrote (`own`) or every one (`all`). */
  async saveMemoryScope(name: string, scope: MemoryScope): Promise<SaveResult> {
    try {
      const saved = await api<ClientMemoryScope>('PUT', `/clients/${encodeURIComponent(name)}/memories`, { scope });
      this.clients = this.clients.map((c) => (c.name === name ? { ...c, memories: saved.memories } : c));
      return { ok: true };
    } catch (error) {
      return { ok: false, message: describeError(error, 'change memory scopes') };
    }
  }

  /** Sets whether a client reads only its own calls in the history (`own`) or every client's (`all`). */
  async saveHistoryScope(name: string, scope: HistoryScope): Promise<SaveResult> {
    try {
      const saved = await api<ClientHistoryScope>('PUT', `/clients/${encodeURIComponent(name)}/history`, { scope });
      this.clients = this.clients.map((c) => (c.name === name ? { ...c, history: saved.history } : c));
      return { ok: true };
    } catch (error) {
      return { ok: false, message: describeError(error, 'change history scopes') };
    }
  }

  /**
   * Issues a named token; the plain token is in the answer and nowhere else, ever. The list gains the new client from
   * the event the gateway sends about it (see `listen`, which every view that issues tokens runs).
   */
  async create(name: string): Promise<IssuedToken | { message: string }> {
    try {
      return await api<IssuedToken>('POST', '/clients', { name });
    } catch (error) {
      return { message: describeError(error, 'issue tokens from the dashboard') };
    }
  }

  async revoke(name: string): Promise<SaveResult> {
    try {
      await api('DELETE', `/clients/${encodeURIComponent(name)}`);
      this.clients = this.clients.filter((c) => c.name !== name);
      return { ok: true };
    } catch (error) {
      return { ok: false, message: describeError(error, 'revoke tokens from the dashboard') };
    }
  }

  /** The default client's token, fetched only when the owner asks to copy or see it. */
  async defaultToken(): Promise<string> {
    return (await api<DefaultToken>('GET', '/clients/default/token')).token;
  }

  /** Reloads when a tool set changes elsewhere (CLI, another tab) or the event stream comes back. */
  listen(feed: GatewayFeed): () => void {
    return feed.follow(() => void this.load(), { tools: ({ reason }) => reason.startsWith('client') });
  }
}

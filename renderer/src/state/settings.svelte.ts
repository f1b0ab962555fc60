import { api, ApiError, describeError } from '../lib/api';
import type { ClientProfile, Settings, SettingsPatch } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

/** Says plainly when the gateway is older than the dashboard and lacks a route, instead of "HTTP 404". */
export function explain(error: unknown, what: string): string {
  if (error instanceof ApiError && error.status === 404 && /^No route /.test(error.message)) {
    return `This gateway cannot ${what} yet (it answered HTTP 404). Update Pincer, or use the \`pincer\` command.`;
  }
  return describeError(error);
}

/** What a save answers: nothing when it worked, the gateway's message when it did not. */
export type SaveResult = { ok: true } | { ok: false; message: string };

/**
 * The gateway's own settings (roots, approval timeout, LLM endpoint, pause). Each section of the Settings view saves
 * its own keys with `save`, and gets the gateway's message back when a value is refused.
 */
export class GatewaySettings {
  settings = $state.raw<Partial<Settings> | null>(null);
  loaded = $state(false);
  error = $state<string | null>(null);

  async load(): Promise<void> {
    try {
      this.settings = await api<Partial<Settings>>('GET', '/settings');
      this.error = null;
    } catch (error) {
      this.error = explain(error, 'show its settings');
    } finally {
      this.loaded = true;
    }
  }

  async save(patch: SettingsPatch): Promise<SaveResult> {
    try {
      const answer = await api<Partial<Settings>>('PATCH', '/settings', patch);
      this.settings = { ...this.settings, ...answer };
      return { ok: true };
    } catch (error) {
      return { ok: false, message: explain(error, 'change this setting') };
    }
  }

  /** Where a key is locked (set by an environment variable or flag), or undefined when the dashboard may change it. */
  lockedBy(key: string): string | undefined {
    return this.settings?.locked?.[key];
  }

  /** Picks up a pause or resume made from the tray or the CLI. */
  listen(feed: GatewayFeed): () => void {
    return feed.on('tools', ({ reason }) => {
      if (reason === 'paused' || reason === 'resumed' || reason === 'settings') void this.load();
    });
  }
}

/** A token the gateway has just issued: shown once, then only its hint is ever seen again. */
export interface IssuedToken {
  name: string;
  token: string;
  created_at: string;
}

/**
 * The clients the owner has issued tokens to (plus the default client), with their tool sets. The Tools view edits
 * tool sets; the Settings view issues and revokes tokens.
 */
export class ClientDirectory {
  clients = $state.raw<ClientProfile[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);

  async load(): Promise<void> {
    try {
      this.clients = (await api<{ clients: ClientProfile[] }>('GET', '/clients')).clients;
      this.error = null;
    } catch (error) {
      this.error = explain(error, 'list its clients');
    } finally {
      this.loaded = true;
    }
  }

  /** Sets which tools a client sees and may call: `null` for every enabled tool. */
  async saveTools(name: string, tools: string[] | null, maxTools: number | null): Promise<SaveResult> {
    try {
      const profile = await api<Pick<ClientProfile, 'name' | 'tools' | 'max_tools'>>('PUT', `/clients/${encodeURIComponent(name)}/tools`, {
        tools,
        max_tools: maxTools,
      });
      this.clients = this.clients.map((c) => (c.name === name ? { ...c, tools: profile.tools, max_tools: profile.max_tools } : c));
      return { ok: true };
    } catch (error) {
      return { ok: false, message: explain(error, 'change tool sets') };
    }
  }

  /** Issues a named token; the plain token is in the answer and nowhere else, ever. */
  async create(name: string): Promise<IssuedToken | { message: string }> {
    try {
      const issued = await api<IssuedToken>('POST', '/clients', { name });
      await this.load();
      return issued;
    } catch (error) {
      return { message: explain(error, 'issue tokens from the dashboard') };
    }
  }

  async revoke(name: string): Promise<SaveResult> {
    try {
      await api('DELETE', `/clients/${encodeURIComponent(name)}`);
      this.clients = this.clients.filter((c) => c.name !== name);
      return { ok: true };
    } catch (error) {
      return { ok: false, message: explain(error, 'revoke tokens from the dashboard') };
    }
  }

  /** The default client's token, fetched only when the owner asks to copy or see it. */
  async defaultToken(): Promise<string> {
    return (await api<{ token: string }>('GET', '/clients/default/token')).token;
  }

  /** Reloads when a tool set changes elsewhere (CLI, another tab). */
  listen(feed: GatewayFeed): () => void {
    const offTools = feed.on('tools', ({ reason }) => {
      if (reason.startsWith('client')) void this.load();
    });
    const offConnect = feed.onConnect((reconnected) => {
      if (reconnected) void this.load();
    });
    return () => {
      offTools();
      offConnect();
    };
  }
}

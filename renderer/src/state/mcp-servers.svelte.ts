import { SvelteMap } from 'svelte/reactivity';
import { api, describeError } from '../lib/api';
import type { GatewayEvents, McpServer, McpServerEntry, McpServerList, Risk } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

/**
 * What the owner does to a server: accept or disable some of its tools (`tools`) or all waiting ones, turn the whole
 * server off or on, or remove it.
 */
export type ServerAction =
  | { kind: 'accept'; tools?: string[]; risk: Risk }
  | { kind: 'disable'; tools?: string[] }
  | { kind: 'enable' }
  | { kind: 'remove' };

/** "the tool echo of stub", "the MCP server stub": what an action was about, for the announcement and the banner. */
function subject(name: string, action: ServerAction): string {
  const tools = 'tools' in action ? action.tools : undefined;
  if (!tools) return action.kind === 'accept' ? `the waiting tools of ${name}` : `the MCP server ${name}`;
  return `${tools.length === 1 ? 'the tool' : 'the tools'} ${tools.join(', ')} of ${name}`;
}

const DONE = { accept: 'Accepted', disable: 'Disabled', enable: 'Enabled', remove: 'Removed' } as const;

/** A `tools` event about imported tools (`<server>__<tool>` coming or going), not a client's tool set or the pause. */
export const importedToolsChanged = ({ reason, names }: GatewayEvents['tools']): boolean =>
  (reason === 'registered' || reason === 'unregistered') && names.some((n) => n.includes('__'));

/**
 * The imported MCP servers, with what each needs from the owner. Owned by the MCP servers view: it loads when the view
 * opens, reloads when a server's status or tools change, and carries out the owner's add, accept, disable, enable and
 * remove.
 */
export class McpServerBoard {
  servers = $state.raw<McpServer[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** What was last done, read out to screen readers. */
  announcement = $state('');
  /** Servers with an action on its way, and which: every button of that server waits for it. */
  readonly #busy = new SvelteMap<string, ServerAction>();
  /** Bumped by every load: an answer overtaken by a newer request is dropped. */
  #generation = 0;

  /** Some server is between states (starting, or restarting after a crash): worth asking again soon. */
  readonly settling = $derived(this.servers.some((s) => s.status === 'starting' || s.status === 'restarting'));

  busy(name: string): ServerAction | undefined {
    return this.#busy.get(name);
  }

  async load(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const answer = await api<McpServerList>('GET', '/mcp-servers');
      if (generation !== this.#generation) return;
      this.servers = answer.servers;
      this.error = null;
    } catch (error) {
      if (generation === this.#generation) this.error = describeError(error, 'import MCP servers');
    } finally {
      this.loaded = true;
    }
  }

  /** Adds a server (saved in config.json, started at once); answers the gateway's refusal, or null when it took it. */
  async add(name: string, entry: McpServerEntry): Promise<string | null> {
    try {
      const view = await api<McpServer>('PUT', `/mcp-servers/${encodeURIComponent(name)}`, entry);
      this.#replace(name, view);
      this.announcement = `Added the MCP server ${name}.`;
      return null;
    } catch (error) {
      return describeError(error, 'add MCP servers');
    } finally {
      void this.load();
    }
  }

  /** The owner's decision on a server or some of its tools; answers whether the gateway took it (a refusal shows in the banner). */
  async act(name: string, action: ServerAction): Promise<boolean> {
    if (this.#busy.has(name)) return false;
    this.#busy.set(name, action);
    try {
      const path = `/mcp-servers/${encodeURIComponent(name)}`;
      if (action.kind === 'remove') {
        await api('DELETE', path);
        this.servers = this.servers.filter((s) => s.name !== name);
      } else {
        // The action's own fields are the body: tools and risk for accept, tools for disable, nothing for enable.
        const { kind, ...body } = action;
        this.#replace(name, await api<McpServer>('POST', `${path}/${kind}`, body));
      }
      this.error = null;
      this.announcement = `${DONE[action.kind]} ${subject(name, action)}${action.kind === 'accept' ? ` as ${action.risk}` : ''}.`;
      return true;
    } catch (error) {
      this.error = `Could not ${action.kind} ${subject(name, action)}: ${describeError(error)}`;
      return false;
    } finally {
      this.#busy.delete(name);
      // What the action set off (a process started or stopped, tools registered) shows in a fresh list.
      void this.load();
    }
  }

  /**
   * Reloads while the view is shown when a server's status, error or tools change, when imported tools are registered
   * or removed, and after the event stream reconnects; returns the unsubscribe.
   */
  listen(feed: GatewayFeed): () => void {
    return feed.follow(() => void this.load(), { mcp_servers: true, tools: importedToolsChanged }, 150);
  }

  #replace(name: string, view: McpServer): void {
    this.servers = this.servers.some((s) => s.name === name) ? this.servers.map((s) => (s.name === name ? view : s)) : [...this.servers, view];
  }
}

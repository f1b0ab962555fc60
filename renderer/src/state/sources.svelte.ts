import { SvelteMap } from 'svelte/reactivity';
import { api, describeError } from '../lib/api';
import type {
  IgnoredPluginFolder,
  McpServerEntryBody,
  McpServerList,
  McpServerView,
  PluginList,
  PluginView,
  SourceAcceptBody,
  SourceKind,
  SourceList,
  SourceRisk,
  SourceView,
} from '../../../server/contract/sources';
import type { StreamEvents } from '../../../server/contract';
import type { GatewayFeed } from './feed.svelte';

interface SourceBase {
  name: string;
  /** Unique across kinds: a plugin and a server may share a name. */
  key: string;
  /** Its status and tools in the words every kind shares. */
  view: SourceView;
}
/** A plugin, with what only plugins have (manifest, permissions, files, the diff of a change, its log). */
export type PluginSource = SourceBase & { kind: 'plugin'; plugin: PluginView };
/** An imported MCP server, with what only servers have (command or URL, package, standard error, definition diffs). */
export type ServerSource = SourceBase & { kind: 'mcp'; server: McpServerView };
export type Source = PluginSource | ServerSource;

/** Each source the gateway lists, with its kind's own view; one not in both answers yet waits for the next load. */
export function joinSources(views: readonly SourceView[], plugins: readonly PluginView[], servers: readonly McpServerView[]): Source[] {
  const pluginBy = new Map(plugins.map((p) => [p.name, p]));
  const serverBy = new Map(servers.map((s) => [s.name, s]));
  return views.flatMap((view): Source[] => {
    const key = `${view.kind}:${view.name}`;
    const plugin = view.kind === 'plugin' ? pluginBy.get(view.name) : undefined;
    if (plugin) return [{ kind: 'plugin', name: view.name, key, view, plugin }];
    const server = view.kind === 'mcp' ? serverBy.get(view.name) : undefined;
    return server ? [{ kind: 'mcp', name: view.name, key, view, server }] : [];
  });
}

/**
 * What the owner does to a source: accept it (a plugin as a whole; a server's waiting tools, or the `tools` named,
 * with a risk), disable it or some of a server's tools, turn it on again, or remove it.
 */
export type SourceAction =
  | { kind: 'accept'; tools?: string[]; risk?: SourceRisk }
  | { kind: 'disable'; tools?: string[] }
  | { kind: 'enable' }
  | { kind: 'remove' };

const DONE = { accept: 'Accepted', disable: 'Disabled', enable: 'Enabled', remove: 'Removed' } as const;

/** "the plugin weather", "the tool echo of stub", "the MCP server stub": what an action was about. */
function subject(source: Source, action: SourceAction): string {
  if (source.kind === 'plugin') return `the plugin ${source.name}`;
  const tools = 'tools' in action ? action.tools : undefined;
  if (!tools) return action.kind === 'accept' ? `the waiting tools of ${source.name}` : `the MCP server ${source.name}`;
  return `${tools.length === 1 ? 'the tool' : 'the tools'} ${tools.join(', ')} of ${source.name}`;
}

/** A `tools` event about imported tools (`<server>__<tool>` coming or going), not a client's tool set or the pause. */
export const importedToolsChanged = ({ reason, names }: StreamEvents['tools']): boolean =>
  (reason === 'registered' || reason === 'unregistered') && names.some((n) => n.includes('__'));
const toolsCameOrWent = ({ reason }: StreamEvents['tools']): boolean => reason === 'registered' || reason === 'unregistered';

/**
 * Every source of outside tools, plugins and imported MCP servers, with what each needs from the owner. Owned by the
 * Sources view: it loads when the view opens, reloads when a source changes status or its tools come and go, and
 * carries out the owner's add, accept, disable, enable and remove.
 */
export class SourceBoard {
  views = $state.raw<SourceView[]>([]);
  plugins = $state.raw<PluginView[]>([]);
  servers = $state.raw<McpServerView[]>([]);
  /** The owner's plugins folder (`<data-dir>/plugins`). */
  folder = $state<string | null>(null);
  /** Plugin folders found and not loaded, with why. */
  ignored = $state.raw<IgnoredPluginFolder[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** What was last done, read out to screen readers. */
  announcement = $state('');
  /** Sources with an action on its way, and which, by key: every button of that source waits for it. */
  readonly #busy = new SvelteMap<string, SourceAction>();
  /** Bumped by every request of a list: an answer overtaken by a newer request is dropped. */
  readonly #generation: Record<List, number> = { sources: 0, plugin: 0, mcp: 0 };
  /** The banner's message when it says a list could not be read: a later good read of that list takes it away. */
  readonly #loadError: Record<List, string | null> = { sources: null, plugin: null, mcp: null };

  readonly sources: Source[] = $derived(joinSources(this.views, this.plugins, this.servers));

  /** Some source is between states (starting, or restarting after a crash): worth asking again soon. */
  readonly settling = $derived(this.views.some((s) => s.status === 'starting' || s.status === 'restarting'));

  busy(source: Source): SourceAction | undefined {
    return this.#busy.get(source.key);
  }

  async load(): Promise<void> {
    await Promise.all([this.#load('sources'), this.#load('plugin'), this.#load('mcp')]);
    this.loaded = true;
  }

  /** Reads the plugin folders again (for a change the gateway has not noticed yet), then the lists. */
  async rescan(): Promise<void> {
    try {
      await api('POST', '/plugins/reload');
    } catch (error) {
      this.error = `Could not rescan the plugin folders: ${describeError(error)}`;
      return;
    }
    await this.#reload('plugin');
  }

  /** Adds an MCP server (saved in config.json, started at once); answers the gateway's refusal, or null when it took it. */
  async add(name: string, entry: McpServerEntryBody): Promise<string | null> {
    try {
      const view = await api<McpServerView>('PUT', `/mcp-servers/${encodeURIComponent(name)}`, entry);
      this.servers = upsert(this.servers, view);
      this.announcement = `Added the MCP server ${name}.`;
      return null;
    } catch (error) {
      return describeError(error, 'add MCP servers');
    } finally {
      void this.#reload('mcp');
    }
  }

  /** The owner's decision on a source or some of its tools; answers whether the gateway took it (a refusal shows in the banner). */
  async act(source: Source, action: SourceAction): Promise<boolean> {
    if (this.#busy.has(source.key)) return false;
    this.#busy.set(source.key, action);
    try {
      if (action.kind === 'remove') {
        // Removing is each kind's own (a folder deleted, a config.json entry dropped), at its own address.
        await api('DELETE', source.view.detail);
        this.views = this.views.filter((v) => v.kind !== source.kind || v.name !== source.name);
      } else {
        const view = await api<SourceView>('POST', `/sources/${source.kind}/${encodeURIComponent(source.name)}/${action.kind}`, bodyOf(source, action));
        this.views = this.views.map((v) => (v.kind === view.kind && v.name === view.name ? view : v));
      }
      this.error = null;
      this.announcement = `${DONE[action.kind]} ${subject(source, action)}${action.kind === 'accept' && action.risk ? ` as ${action.risk}` : ''}.`;
      return true;
    } catch (error) {
      this.error = `Could not ${action.kind} ${subject(source, action)}: ${describeError(error)}`;
      return false;
    } finally {
      this.#busy.delete(source.key);
      // What the action set off (a process started or stopped, tools registered) shows in fresh lists.
      void this.#reload(source.kind);
    }
  }

  /**
   * While the view is shown, reloads a kind when one of its sources changes status or its tools come and go, and
   * everything after the event stream reconnects; returns the unsubscribe.
   */
  listen(feed: GatewayFeed): () => void {
    const offs = [
      feed.follow(() => void this.#reload('plugin'), { plugins: true, tools: toolsCameOrWent }, 150),
      feed.follow(() => void this.#reload('mcp'), { mcp_servers: true, tools: importedToolsChanged }, 150),
    ];
    return () => offs.forEach((off) => off());
  }

  /** A kind's own list, and the shared one that says its status. */
  #reload(kind: SourceKind): Promise<unknown> {
    return Promise.all([this.#load('sources'), this.#load(kind)]);
  }

  async #load(list: List): Promise<void> {
    const generation = ++this.#generation[list];
    const current = () => generation === this.#generation[list];
    try {
      if (list === 'sources') {
        const answer = await api<SourceList>('GET', '/sources');
        if (current()) this.views = answer.sources;
      } else if (list === 'plugin') {
        const answer = await api<PluginList>('GET', '/plugins');
        if (!current()) return;
        this.plugins = answer.plugins;
        this.folder = answer.folder;
        this.ignored = answer.ignored ?? [];
      } else {
        const answer = await api<McpServerList>('GET', '/mcp-servers');
        if (current()) this.servers = answer.servers;
      }
      if (this.#loadError[list] !== null && this.error === this.#loadError[list]) this.error = null;
      this.#loadError[list] = null;
    } catch (error) {
      if (current()) this.error = this.#loadError[list] = describeError(error, LOADING[list]);
    }
  }
}

/** What an accept, disable or enable sends: the tools it is about, the risk they run with, the hash the owner saw. */
function bodyOf(source: Source, action: Exclude<SourceAction, { kind: 'remove' }>): SourceAcceptBody | undefined {
  if (action.kind === 'enable') return undefined;
  const body: SourceAcceptBody = {};
  if (action.tools) body.tools = action.tools;
  if (action.kind === 'accept') {
    if (action.risk) body.risk = action.risk;
    // Accepting names the hash the owner was shown: a plugin that changed since is refused, not accepted unseen.
    if (source.kind === 'plugin' && source.plugin.hash) body.hash = source.plugin.hash;
  }
  return Object.keys(body).length > 0 ? body : undefined;
}

type List = 'sources' | SourceKind;
const LOADING: Record<List, string> = { sources: 'list tool sources', plugin: 'list plugins', mcp: 'import MCP servers' };

function upsert<T extends { name: string }>(list: readonly T[], item: T): T[] {
  return list.some((x) => x.name === item.name) ? list.map((x) => (x.name === item.name ? item : x)) : [...list, item];
}

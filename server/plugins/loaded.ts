import type { Announcer } from '../events/bus.js';
import type { FoundPlugin } from './discover.js';
import type { PluginHost } from './host.js';
import type { FolderHash } from './integrity.js';
import type { PluginManifest } from './manifest.js';
import type { PluginStatus, PluginView } from './plugin-view.js';

const MAX_LOG_LINES = 20;

/** One plugin as the manager holds it, from the moment its folder is found. */
export interface Loaded {
  found: FoundPlugin;
  view: PluginView;
  manifest?: PluginManifest;
  /** Its files as hashed when it was loaded. */
  scan?: FolderHash;
  host?: PluginHost;
  /** A TypeScript entry's build: where, and its hash as written. */
  build?: { dir: string; hash: string };
  /** Bumped on each (re)load: a slow load that was overtaken by a newer one drops its result. */
  generation: number;
  /** Aborted when the plugin is unloaded: its HTTP requests end with it. */
  requests: AbortController;
}

/** The plugins loaded now, by name, and what is said of each: its status announced, its troubles logged once. */
export class LoadedPlugins {
  readonly #plugins = new Map<string, Loaded>();
  /** The last status and reason logged of each plugin. */
  readonly #logged = new Map<string, string>();

  constructor(private readonly out: { log(line: string): void; events: Announcer<'plugins'> }) {}

  get(name: string): Loaded | undefined {
    return this.#plugins.get(name);
  }

  set(plugin: Loaded): void {
    this.#plugins.set(plugin.found.name, plugin);
  }

  delete(name: string): void {
    this.#plugins.delete(name);
  }

  names(): string[] {
    return [...this.#plugins.keys()];
  }

  all(): Loaded[] {
    return [...this.#plugins.values()];
  }

  /** Still the load under way for its name: one overtaken by a newer load (or an unload) drops what it finds. */
  isCurrent(plugin: Loaded): boolean {
    return this.#plugins.get(plugin.found.name) === plugin;
  }

  /** Its new status, announced; a failure or crash is also logged, once while it stays the same. */
  status(plugin: Loaded, status: PluginStatus, reason: string | null): void {
    if (!this.isCurrent(plugin)) return;
    plugin.view.status = status;
    plugin.view.reason = reason;
    // Said once: a folder that stays broken is reloaded at every rescan, and would repeat itself each time.
    const said = `${status}: ${reason}`;
    if ((status === 'failed' || status === 'crashed') && this.#logged.get(plugin.found.name) !== said) this.out.log(`pincer: plugin ${plugin.found.name} ${said}`);
    this.#logged.set(plugin.found.name, said);
    this.out.events.emit('plugins', { name: plugin.view.name, status: plugin.view.status, reason: plugin.view.reason });
  }

  /** A line kept in the plugin's own log (the last few show in its view). */
  keep(plugin: Loaded, level: string, message: string): void {
    plugin.view.log = [...plugin.view.log, { at: new Date().toISOString(), level, message: message.slice(0, 2000) }].slice(-MAX_LOG_LINES);
  }
}

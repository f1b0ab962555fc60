import { mkdirSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GatewayError } from '../errors.js';
import type { PluginFetchInit } from '../plugin-api.js';
import type { ProcessRunner } from '../process/index.js';
import { Sandbox, sandboxSupport } from '../process/sandbox.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { bundledPluginsDir, findPlugins, pluginApiFile, writeApiShim, type FoundPlugin, type PluginOrigin } from './discover.js';
import { packagePath } from '../util/package-files.js';
import { buildEntry } from './build.js';
import { PluginHost, childScript, pluginSandbox, type PluginSandboxView } from './host.js';
import { hashPluginFolder } from './integrity.js';
import { readManifest, type PluginManifest } from './manifest.js';
import { ownFolders } from '../config/own-folders.js';
import type { DeclaredTool } from './protocol.js';
import { declaredToolProblem, effectiveRisk, pluginTool } from './tools.js';
import { diffTools, type ToolChanges } from './diff.js';

/**
 * running: its tools are registered. new / changed: held back until the owner accepts it (its tools are listed, not
 * registered). disabled: the owner turned it off. failed: it could not load (the reason says why). crashed: its
 * process ended and is being restarted.
 */
export type PluginStatus = 'loading' | 'running' | 'new' | 'changed' | 'disabled' | 'failed' | 'crashed';

export interface PluginView {
  name: string;
  origin: PluginOrigin;
  dir: string;
  status: PluginStatus;
  /** Why it is not running, or its last error. */
  reason: string | null;
  version: string | null;
  description: string | null;
  hash: string | null;
  permissions: PluginManifest['permissions'] | null;
  tools: { name: string; description: string; risk: string; declared_risk: string; raised_because: string[]; registered: boolean }[];
  /** For a changed plugin: what differs from what the owner accepted. */
  changes: ToolChanges | null;
  accepted_at: string | null;
  restarts: number;
  /** The last lines it logged (warnings and errors). */
  log: { at: string; level: string; message: string }[];
  /** What contains its process here: the OS sandbox, or Node's permission model alone (`none`). */
  sandbox: PluginSandboxView;
}

/** A plugin folder that was found and not loaded. */
export interface IgnoredPluginFolder {
  name: string;
  dir: string;
  reason: string;
}

export interface PluginManagerOptions {
  dataDir: string;
  /** Bundled plugins' folder; null for none (most tests). Default: the one shipped with this package. */
  bundledDir?: string | null;
  registry: ToolRegistry;
  store: Store;
  runner: ProcessRunner;
  /** Per-plugin settings: `plugins.<name>` in config.json. */
  settings(name: string): Record<string, unknown>;
  /** HTTP for plugins with the URL policy applied (the manifest's hosts are checked here first). */
  fetch(url: string, init: PluginFetchInit & { signal: AbortSignal; timeoutMs: number; maxBytes: number }): Promise<{ status: number; url: string; headers: Record<string, string>; body: Buffer }>;
  log(line: string): void;
  /** Status changes (tools themselves are announced by the registry). */
  onChange(view: PluginView): void;
  /** Quiet period before a change on disk is acted on. */
  debounceMs?: number;
  /** The OS sandbox plugin processes run in; default the one this machine has (none where there is none). */
  sandbox?: Sandbox;
}

interface Loaded {
  found: FoundPlugin;
  view: PluginView;
  manifest?: PluginManifest;
  host?: PluginHost;
  declared: DeclaredTool[];
  /** Bumped on each (re)load: a slow load that was overtaken by a newer one drops its result. */
  generation: number;
  /** Aborted when the plugin is unloaded: its HTTP requests end with it. */
  requests: AbortController;
}

const MAX_LOG_LINES = 20;

/** Finds, checks, pins, runs and reloads plugins, and keeps their tools in the registry while they may run. */
export class PluginManager {
  readonly userDir: string;
  readonly #bundledDir: string | null;
  /** Pincer's package, bundled plugins and data folder: no plugin's write permission may reach them. */
  readonly #ownFolders: string[];
  #ignored: IgnoredPluginFolder[] = [];
  readonly #plugins = new Map<string, Loaded>();
  #watchers: FSWatcher[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #scan: Promise<void> = Promise.resolve();
  readonly #sandbox: Sandbox;

  constructor(private readonly options: PluginManagerOptions) {
    this.userDir = join(options.dataDir, 'plugins');
    this.#bundledDir = options.bundledDir === undefined ? bundledPluginsDir() : options.bundledDir;
    this.#sandbox = options.sandbox ?? new Sandbox(sandboxSupport());
    this.#ownFolders = ownFolders(options.dataDir, this.#bundledDir).map((folder) => folder.path);
  }

  /** Loads every plugin (in the background: the gateway answers meanwhile) and follows the folders for changes. */
  start(): Promise<void> {
    mkdirSync(this.userDir, { recursive: true });
    writeApiShim(this.userDir);
    for (const dir of [this.userDir, this.#bundledDir]) {
      if (!dir) continue;
      try {
        const watcher = watch(dir, { recursive: true }, (_event, file) => {
          if (file && /(^|[\\/])(node_modules|\.build)([\\/]|$)/.test(String(file))) return;
          this.#scheduleRescan();
        });
        watcher.on('error', (error) => this.options.log(`pincer: stopped watching ${dir} for plugin changes: ${error.message}`));
        this.#watchers.push(watcher);
      } catch {
        // No bundled folder (a build without plugins): nothing to follow.
      }
    }
    return this.rescan();
  }

  /** Folders found but not loaded, with why (a user's folder named like a bundled plugin). */
  ignored(): readonly IgnoredPluginFolder[] {
    return this.#ignored;
  }

  list(): PluginView[] {
    return [...this.#plugins.values()].map((p) => p.view).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): PluginView | undefined {
    return this.#plugins.get(name)?.view;
  }

  /** Reads the folders again and reloads what was added, changed or removed. */
  rescan(): Promise<void> {
    this.#scan = this.#scan.then(() => this.#rescanNow()).catch((error: Error) => this.options.log(`pincer: plugin scan failed: ${error.message}`));
    return this.#scan;
  }

  /** The owner accepts the plugin as it is on disk now (its files, tools and permissions); it starts at once. */
  async accept(name: string, by: string): Promise<PluginView> {
    const plugin = this.#require(name);
    if (plugin.view.status === 'running' || plugin.view.status === 'disabled') return plugin.view;
    if (!plugin.manifest || plugin.view.hash === null) throw new GatewayError('PLUGIN_STATE', 409, `"${name}" cannot be accepted: ${plugin.view.reason ?? 'it did not load'}.`);
    this.options.store.plugins.accept({ name, hash: plugin.view.hash, tools: plugin.declared, permissions: plugin.manifest.permissions }, by);
    await this.#reload(plugin.found);
    return this.#require(name).view;
  }

  async setDisabled(name: string, disabled: boolean): Promise<PluginView> {
    const plugin = this.#require(name);
    if (!this.options.store.plugins.setDisabled(name, disabled)) {
      throw new GatewayError('PLUGIN_STATE', 409, `"${name}" was never accepted: accept it first${disabled ? ', or remove it' : ''}.`);
    }
    await this.#reload(plugin.found);
    return this.#require(name).view;
  }

  /** Removes a user plugin's folder and what the owner accepted of it. Bundled plugins can only be disabled. */
  async remove(name: string): Promise<void> {
    const plugin = this.#require(name);
    if (plugin.found.origin === 'bundled') throw new GatewayError('PLUGIN_STATE', 409, `"${name}" is bundled with Pincer: disable it instead.`);
    await this.#unload(name);
    rmSync(plugin.found.dir, { recursive: true, force: true });
    this.options.store.plugins.forget(name);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    await this.#scan;
    await Promise.all([...this.#plugins.keys()].map((name) => this.#unload(name)));
  }

  #require(name: string): Loaded {
    const plugin = this.#plugins.get(name);
    if (!plugin) throw new GatewayError('NOT_FOUND', 404, `No plugin named "${name}".`);
    return plugin;
  }

  #scheduleRescan(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.rescan(), this.options.debounceMs ?? 300);
    this.#timer.unref();
  }

  async #rescanNow(): Promise<void> {
    if (this.#closed) return;
    const roots = [...(this.#bundledDir ? [{ dir: this.#bundledDir, origin: 'bundled' as const }] : []), { dir: this.userDir, origin: 'user' as const }];
    const found = new Map<string, FoundPlugin>();
    const ignored: IgnoredPluginFolder[] = [];
    for (const plugin of findPlugins(roots)) {
      // Security: a user's folder cannot take the name (and so the trust) of a bundled plugin.
      if (found.has(plugin.name)) {
        const reason = `a plugin bundled with Pincer is named "${plugin.name}"; rename the folder (and the manifest's name) to load it`;
        if (!this.#ignored.some((i) => i.dir === plugin.dir)) this.options.log(`pincer: ignored the plugin folder ${plugin.dir}: ${reason}`);
        ignored.push({ name: plugin.name, dir: plugin.dir, reason });
        continue;
      }
      found.set(plugin.name, plugin);
    }
    this.#ignored = ignored;
    for (const name of [...this.#plugins.keys()]) if (!found.has(name)) await this.#unload(name);
    for (const plugin of found.values()) {
      const loaded = this.#plugins.get(plugin.name);
      if (loaded && loaded.view.hash !== null && loaded.view.hash === safeHash(plugin.dir)) continue;
      await this.#reload(plugin);
    }
  }

  async #reload(found: FoundPlugin): Promise<void> {
    await this.#unload(found.name);
    if (this.#closed) return;
    const generation = (this.#plugins.get(found.name)?.generation ?? 0) + 1;
    const view: PluginView = {
      name: found.name,
      origin: found.origin,
      dir: found.dir,
      status: 'loading',
      reason: null,
      version: null,
      description: null,
      hash: null,
      permissions: null,
      tools: [],
      changes: null,
      accepted_at: null,
      restarts: 0,
      log: [],
      sandbox: pluginSandbox(this.#sandbox.support),
    };
    const plugin: Loaded = { found, view, declared: [], generation, requests: new AbortController() };
    this.#plugins.set(found.name, plugin);
    try {
      await this.#load(plugin);
    } catch (error) {
      await plugin.host?.stop();
      plugin.host = undefined;
      this.#set(plugin, 'failed', (error as Error).message);
    }
  }

  async #load(plugin: Loaded): Promise<void> {
    const { found, view } = plugin;
    const manifest = readManifest(found.dir, found.name, this.#ownFolders);
    plugin.manifest = manifest;
    Object.assign(view, { version: manifest.version, description: manifest.description, permissions: manifest.permissions });
    view.hash = hashPluginFolder(found.dir).hash;
    const accepted = this.options.store.plugins.get(found.name);
    view.accepted_at = accepted?.accepted_at ?? null;
    // Bundled plugins are trusted as shipped; a user's plugin runs only as the owner accepted it.
    const trusted = found.origin === 'bundled' || accepted?.hash === view.hash;
    if (accepted?.disabled) {
      view.tools = (accepted.tools as DeclaredTool[]).map((t) => this.#toolView(t, manifest, false));
      return this.#set(plugin, 'disabled', 'The owner disabled this plugin.');
    }
    const entry = await buildEntry(found, manifest, this.userDir);
    // Held back, it runs with no permission beyond its own folder: only long enough to say what tools it has.
    const host = new PluginHost(
      {
        name: found.name,
        dir: found.dir,
        entryUrl: pathToFileURL(entry.file).href,
        code: [...new Set([...this.#codeReads(found), ...entry.reads])],
        read: trusted ? manifest.permissions.read : [],
        write: trusted ? manifest.permissions.write : [],
        childProcess: trusted && manifest.permissions.childProcess,
        workers: trusted && manifest.permissions.workers,
        addons: trusted && manifest.permissions.addons,
        hidden: [this.options.dataDir],
        config: this.options.settings(found.name),
      },
      {
        runner: this.options.runner,
        sandbox: this.#sandbox,
        fetch: (url, init) => this.#fetch(plugin, url, init),
        log: (level, message) => this.#log(plugin, level, message),
        onCrash: (reason, delayMs) => {
          view.restarts += 1;
          // Kept in its log: once it is back, its status no longer says why it went.
          this.#keep(plugin, 'error', `its process ended: ${reason}`);
          this.#set(plugin, 'crashed', `${reason}; restarting in ${Math.round(delayMs / 1000)} s`);
        },
        onRestarted: () => this.#set(plugin, 'running', null),
      },
    );
    plugin.host = host;
    const declared = await host.start();
    if (this.#plugins.get(found.name) !== plugin) return void (await host.stop());
    for (const tool of declared) {
      const problem = declaredToolProblem(tool);
      if (problem) throw new Error(problem);
    }
    plugin.declared = declared;
    if (!trusted) {
      await host.stop();
      plugin.host = undefined;
      view.tools = declared.map((t) => this.#toolView(t, manifest, false));
      if (accepted) {
        view.changes = diffTools(accepted.tools as DeclaredTool[], declared, accepted.permissions, manifest.permissions);
        return this.#set(plugin, 'changed', 'Its files changed since the owner accepted it: its tools stay off until the owner accepts the change.');
      }
      return this.#set(plugin, 'new', 'A new plugin: its tools stay off until the owner accepts it.');
    }
    if (found.origin === 'bundled' && accepted?.hash !== view.hash) {
      this.options.store.plugins.accept({ name: found.name, hash: view.hash, tools: declared, permissions: manifest.permissions }, 'bundled');
      view.accepted_at = new Date().toISOString();
    }
    this.#register(plugin, declared, manifest);
    view.tools = declared.map((t) => this.#toolView(t, manifest, true));
    this.#set(plugin, 'running', null);
  }

  /** All of a plugin's tools or none: a name taken by another tool fails the plugin, with the reason. */
  #register(plugin: Loaded, declared: DeclaredTool[], manifest: PluginManifest): void {
    const done: string[] = [];
    try {
      for (const tool of declared) {
        this.options.registry.register(pluginTool(tool, manifest, () => plugin.host), `plugin:${manifest.name}`);
        done.push(tool.name);
      }
    } catch (error) {
      for (const name of done) this.options.registry.unregister(name);
      throw error;
    }
  }

  async #unload(name: string): Promise<void> {
    const plugin = this.#plugins.get(name);
    if (!plugin) return;
    this.#plugins.delete(name);
    plugin.requests.abort(new Error(`the plugin ${name} stopped`));
    for (const tool of this.options.registry.list()) if (tool.source === `plugin:${name}`) this.options.registry.unregister(tool.definition.name);
    await plugin.host?.stop();
  }

  /** What the plugin's process must read to run at all: this gateway's child script, the API and how it resolves. */
  #codeReads(found: FoundPlugin): string[] {
    const api = pluginApiFile();
    return [
      `${found.dir}/*`,
      `${dirname(childScript())}/*`,
      // The package's own package.json: it makes the child script an ES module.
      packagePath('package.json'),
      api,
      // `pincer/plugin`: the small package beside the plugins that re-exports the API (user folder or bundled).
      `${join(found.origin === 'bundled' && this.#bundledDir ? this.#bundledDir : this.userDir, 'node_modules', 'pincer')}/*`,
    ];
  }

  async #fetch(plugin: Loaded, url: string, init: PluginFetchInit) {
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase();
    } catch {
      throw new Error(`"${url}" is not a URL`);
    }
    const allowed = allowedHosts(plugin.manifest!, this.options.settings(plugin.found.name));
    if (!allowed.has(host)) {
      throw new Error(`the plugin may not reach ${host}: its manifest lists ${[...allowed].join(', ') || 'no hosts'} (permissions.hosts)`);
    }
    // The request's own time limit is the network guard's (its error names the host and the limit); the signal only
    // ends the requests of a plugin that stopped.
    const timeoutMs = Math.min(Math.max(init.timeoutMs ?? 15_000, 100), 120_000);
    const maxBytes = Math.min(init.maxBytes ?? 5 * 2 ** 20, 32 * 2 ** 20);
    return this.options.fetch(url, { ...init, timeoutMs, maxBytes, signal: plugin.requests.signal });
  }

  #log(plugin: Loaded, level: string, message: string): void {
    if (level === 'warn' || level === 'error') {
      this.#keep(plugin, level, message);
      this.options.log(`pincer: plugin ${plugin.found.name}: ${message.slice(0, 500)}`);
    }
  }

  #keep(plugin: Loaded, level: string, message: string): void {
    plugin.view.log = [...plugin.view.log, { at: new Date().toISOString(), level, message: message.slice(0, 2000) }].slice(-MAX_LOG_LINES);
  }

  #toolView(tool: DeclaredTool, manifest: PluginManifest, registered: boolean): PluginView['tools'][number] {
    const { risk, why } = effectiveRisk(tool, manifest);
    return { name: tool.name, description: tool.description, risk, declared_risk: tool.risk, raised_because: why, registered };
  }

  #set(plugin: Loaded, status: PluginStatus, reason: string | null): void {
    if (this.#plugins.get(plugin.found.name) !== plugin) return;
    plugin.view.status = status;
    plugin.view.reason = reason;
    if (status === 'failed' || status === 'crashed') this.options.log(`pincer: plugin ${plugin.found.name} ${status}: ${reason}`);
    this.options.onChange(plugin.view);
  }
}

/**
 * Hosts a plugin's HTTP client may reach: the manifest's, plus those of the URLs the owner set in the plugin's
 * settings (the owner chose those addresses; the URL policy still applies to them).
 */
export function allowedHosts(manifest: PluginManifest, settings: Record<string, unknown>): Set<string> {
  const hosts = new Set(manifest.permissions.hosts);
  for (const value of Object.values(settings)) {
    if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) continue;
    try {
      hosts.add(new URL(value).hostname.toLowerCase());
    } catch {
      // Not a URL after all: it names no host.
    }
  }
  return hosts;
}


function safeHash(dir: string): string | null {
  try {
    return hashPluginFolder(dir).hash;
  } catch {
    return null;
  }
}

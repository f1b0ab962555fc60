import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GatewayError } from '../errors.js';
import type { PluginFetchInit } from '../plugin-api.js';
import type { ProcessRunner } from '../process/index.js';
import { Sandbox, sandboxSupport } from '../process/sandbox.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { bundledPluginsDir, findPlugins, pluginApiFile, writeApiShim, type FoundPlugin } from './discover.js';
import { packagePath } from '../util/package-files.js';
import { watchTree, type TreeWatch } from '../util/tree-watch.js';
import { buildEntry } from './build.js';
import { bundledRecordFile, readBundledRecord, type BundledRecord } from './bundled.js';
import { PluginHost, childScript, pluginSandbox } from './host.js';
import { hashPluginFolder, type FolderHash, type HashedFile } from './integrity.js';
import { readManifest, type ManifestTool, type PluginManifest } from './manifest.js';
import { ownFolders } from '../config/own-folders.js';
import type { DeclaredTool } from './protocol.js';
import { declaredToolProblem, pluginTool, toolMismatch } from './tools.js';
import { BUNDLED_BY, CHANGED, heldBecause, heldToolMessage } from './held.js';
import { allowedHosts } from './hosts.js';
import { loadingView, pluginToolView, type IgnoredPluginFolder, type PluginStatus, type PluginView } from './plugin-view.js';
import { diffPlugin, ownFirst } from './diff.js';
import type { Announcer } from '../events/bus.js';

export type { IgnoredPluginFolder, PluginStatus, PluginView } from './plugin-view.js';

export interface PluginManagerOptions {
  dataDir: string;
  /** Bundled plugins' folder; null for none (most tests). Default: the one shipped with this package. */
  bundledDir?: string | null;
  /** The bundled plugins' hashes as built (bundled.ts). Default: the one the build wrote into this package. */
  bundledRecord?: string;
  registry: ToolRegistry;
  store: Store;
  runner: ProcessRunner;
  /** Per-plugin settings: `plugins.<name>` in config.json. */
  settings(name: string): Record<string, unknown>;
  /** HTTP for plugins with the URL policy applied (the manifest's hosts are checked here first). */
  fetch(url: string, init: PluginFetchInit & { signal: AbortSignal; timeoutMs: number; maxBytes: number }): Promise<{ status: number; url: string; headers: Record<string, string>; body: Buffer }>;
  log(line: string): void;
  /** Where status changes are announced (tools themselves are announced by the registry). */
  events: Announcer<'plugins'>;
  /** Quiet period before a change on disk is acted on. */
  debounceMs?: number;
  /** The OS sandbox plugin processes run in; default the one this machine has (none where there is none). */
  sandbox?: Sandbox;
}

interface Loaded {
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

const MAX_LOG_LINES = 20;
const MAX_VIEW_FILES = 200;

/** Finds, checks, pins, runs and reloads plugins, and keeps their tools in the registry while they may run. */
export class PluginManager {
  readonly userDir: string;
  readonly #bundledDir: string | null;
  /** Pincer's package, bundled plugins and data folder: no plugin's write permission may reach them. */
  readonly #ownFolders: string[];
  readonly #bundledRecord: BundledRecord | null;
  #ignored: IgnoredPluginFolder[] = [];
  readonly #plugins = new Map<string, Loaded>();
  #watchers: TreeWatch[] = [];
  #closed = false;
  #scan: Promise<void> = Promise.resolve();
  readonly #sandbox: Sandbox;
  /** The last status and reason logged of each plugin. */
  readonly #logged = new Map<string, string>();

  constructor(private readonly options: PluginManagerOptions) {
    this.userDir = join(options.dataDir, 'plugins');
    this.#bundledDir = options.bundledDir === undefined ? bundledPluginsDir() : options.bundledDir;
    this.#sandbox = options.sandbox ?? new Sandbox(sandboxSupport());
    this.#ownFolders = ownFolders(options.dataDir, this.#bundledDir).map((folder) => folder.path);
    this.#bundledRecord = this.#bundledDir ? readBundledRecord(options.bundledRecord ?? bundledRecordFile()) : null;
  }

  /** Loads every plugin (in the background: the gateway answers meanwhile) and follows the folders for changes. */
  start(): Promise<void> {
    mkdirSync(this.userDir, { recursive: true });
    writeApiShim(this.userDir);
    // Builds can inline what a plugin reads: only this user may look inside, older builds included.
    const builds = join(this.userDir, '.build');
    if (lstatSync(builds, { throwIfNoEntry: false })?.isDirectory()) chmodSync(builds, 0o700);
    for (const dir of [this.userDir, this.#bundledDir]) {
      // No bundled folder (a build without plugins): nothing to follow.
      if (!dir || !existsSync(dir)) continue;
      // node_modules and builds too: a file swapped there must hold its plugin as soon as it is seen. Only the
      // plugins' own .git folders (not part of what is hashed) and the shim the gateway writes are left out.
      const watcher = watchTree(dir, {
        ignore: (file) => /^(node_modules(\/|$)|[^/]+\/\.git(\/|$))/.test(file),
        onChange: () => void this.rescan(),
        onError: (error) => this.options.log(`pincer: plugin changes under ${dir}: ${error.message}`),
        debounceMs: this.options.debounceMs ?? 300,
      });
      this.#watchers.push(watcher);
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

  /**
   * The owner accepts the plugin as it is on disk now (its files, tools and permissions); it starts at once. With
   * `hash`, only if that is still the plugin's hash: what the owner looked at is what they accept.
   */
  async accept(name: string, by: string, hash?: string): Promise<PluginView> {
    const plugin = this.#require(name);
    if (hash !== undefined && hash !== plugin.view.hash) throw changedSinceShown(name);
    if (plugin.view.status === 'running' || plugin.view.status === 'disabled') return plugin.view;
    const { manifest, scan } = plugin;
    if (!manifest || !scan) throw new GatewayError('PLUGIN_STATE', `"${name}" cannot be accepted: ${plugin.view.reason ?? 'it did not load'}.`);
    // Security: the files must still be those shown; a change in between is shown first, never accepted unseen.
    if (this.#hashNow(plugin.found) !== scan.hash) {
      void this.rescan();
      throw changedSinceShown(name);
    }
    this.options.store.plugins.accept({ name, hash: scan.hash, tools: manifest.tools, permissions: manifest.permissions, files: scan.files }, by);
    await this.#reload(plugin.found);
    return this.#require(name).view;
  }

  async setDisabled(name: string, disabled: boolean): Promise<PluginView> {
    const plugin = this.#require(name);
    if (!this.options.store.plugins.setDisabled(name, disabled)) {
      throw new GatewayError('PLUGIN_STATE', `"${name}" was never accepted: accept it first${disabled ? ', or remove it' : ''}.`);
    }
    await this.#reload(plugin.found);
    return this.#require(name).view;
  }

  /** Removes a user plugin's folder and what the owner accepted of it. Bundled plugins can only be disabled. */
  async remove(name: string): Promise<void> {
    const plugin = this.#require(name);
    if (plugin.found.origin === 'bundled') throw new GatewayError('PLUGIN_STATE', `"${name}" is bundled with Pincer: disable it instead.`);
    await this.#unload(name);
    rmSync(plugin.found.dir, { recursive: true, force: true });
    this.options.store.plugins.forget(name);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    await this.#scan;
    await Promise.all([...this.#plugins.keys()].map((name) => this.#unload(name)));
  }

  #require(name: string): Loaded {
    const plugin = this.#plugins.get(name);
    if (!plugin) throw new GatewayError('NOT_FOUND', `No plugin named "${name}".`);
    return plugin;
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
      if (loaded && loaded.view.hash !== null && loaded.view.hash === this.#hashNow(plugin)) {
        const tampered = loaded.host ? this.#buildProblem(loaded) : null;
        if (tampered) await this.#hold(loaded, tampered);
        continue;
      }
      await this.#reload(plugin);
    }
  }

  async #reload(found: FoundPlugin): Promise<void> {
    await this.#unload(found.name);
    if (this.#closed) return;
    const generation = (this.#plugins.get(found.name)?.generation ?? 0) + 1;
    const view = loadingView(found, pluginSandbox(this.#sandbox.support));
    const plugin: Loaded = { found, view, generation, requests: new AbortController() };
    this.#plugins.set(found.name, plugin);
    try {
      await this.#load(plugin);
    } catch (error) {
      await plugin.host?.stop();
      plugin.host = undefined;
      this.#set(plugin, 'failed', (error as Error).message);
    }
  }

  /**
   * Security: until the owner accepted these very files, nothing of the plugin runs — not its entry, not a
   * top-level statement, not a build. Its folder is only read: hashed, and its manifest parsed.
   */
  async #load(plugin: Loaded): Promise<void> {
    const { found, view } = plugin;
    const scan = hashPluginFolder(found.dir, { protectedFiles: this.#protectedFiles() });
    plugin.scan = scan;
    Object.assign(view, {
      hash: scan.hash,
      files: ownFirst(scan.files).slice(0, MAX_VIEW_FILES).map((f) => ({ path: f.path, size: f.size, ...(f.link !== undefined && { link: f.link }) })),
      file_count: scan.files.length,
      file_bytes: scan.bytes,
    });
    const manifest = readManifest(found.dir, found.name, this.#ownFolders);
    plugin.manifest = manifest;
    Object.assign(view, { version: manifest.version, description: manifest.description, entry: manifest.entry, permissions: manifest.permissions });
    const accepted = this.options.store.plugins.get(found.name);
    view.accepted_at = accepted?.accepted_at ?? null;
    if (accepted?.disabled) {
      view.tools = manifest.tools.map((t) => pluginToolView(t, manifest, false));
      return this.#set(plugin, 'disabled', 'The owner disabled this plugin.');
    }
    const held = heldBecause(found, scan.hash, accepted, this.#bundledRecord);
    if (held) {
      view.tools = manifest.tools.map((t) => pluginToolView(t, manifest, false));
      if (accepted) {
        view.changes = diffPlugin(
          { tools: accepted.tools as ManifestTool[], permissions: accepted.permissions, files: accepted.files as HashedFile[] | null },
          { tools: manifest.tools, permissions: manifest.permissions, files: scan.files },
        );
      }
      this.#holdTools(plugin, held.status);
      return this.#set(plugin, held.status, held.reason);
    }

    const entry = await buildEntry(found, manifest, this.userDir, scan);
    if (this.#plugins.get(found.name) !== plugin) return;
    if (entry.outDir) plugin.build = { dir: entry.outDir, hash: hashPluginFolder(entry.outDir).hash };
    const problem = this.#readyToStart(plugin);
    if (problem) return this.#hold(plugin, problem);
    const host = new PluginHost(
      {
        name: found.name,
        dir: found.dir,
        entryUrl: pathToFileURL(entry.file).href,
        code: [...new Set([...this.#codeReads(found, scan), ...entry.reads])],
        read: manifest.permissions.read,
        write: manifest.permissions.write,
        childProcess: manifest.permissions.childProcess,
        workers: manifest.permissions.workers,
        addons: manifest.permissions.addons,
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
        beforeRestart: () => {
          const refused = this.#readyToStart(plugin);
          // Held, not restarted; a rescan then shows what changed.
          if (refused) void this.#hold(plugin, refused).then(() => this.rescan());
          return refused;
        },
      },
    );
    plugin.host = host;
    const declared = await host.start();
    if (this.#plugins.get(found.name) !== plugin) return void (await host.stop());
    for (const tool of declared) {
      const problem = declaredToolProblem(tool);
      if (problem) throw new Error(problem);
    }
    const mismatch = toolMismatch(manifest.tools, declared);
    if (mismatch) throw new Error(mismatch);
    if (found.origin === 'bundled' && accepted?.hash !== view.hash) {
      // What disabling it keeps; never counted as the owner's acceptance.
      this.options.store.plugins.accept({ name: found.name, hash: scan.hash, tools: manifest.tools, permissions: manifest.permissions, files: scan.files }, BUNDLED_BY);
      view.accepted_at = new Date().toISOString();
    }
    this.#register(plugin, declared, manifest);
    view.tools = declared.map((t) => pluginToolView(t, manifest, true));
    this.#set(plugin, 'running', null);
  }

  /**
   * Checked right before its process starts (and restarts): its files and build still hash as accepted and built.
   * Returns why not. The API shim is the gateway's own: it is written again rather than trusted.
   */
  #readyToStart(plugin: Loaded): string | null {
    if (plugin.found.origin === 'user') writeApiShim(this.userDir);
    if (this.#hashNow(plugin.found) !== plugin.view.hash) {
      return CHANGED;
    }
    return this.#buildProblem(plugin);
  }

  #buildProblem(plugin: Loaded): string | null {
    if (!plugin.build) return null;
    let hash: string | null;
    try {
      hash = hashPluginFolder(plugin.build.dir).hash;
    } catch {
      hash = null;
    }
    if (hash === plugin.build.hash) return null;
    return `Its build in ${plugin.build.dir} changed after Pincer wrote it: its tools stay off until the owner accepts the plugin again, which builds it afresh.`;
  }

  /** An accepted plugin whose files no longer check out: stopped, its tools taken away and held, until accepted. */
  async #hold(plugin: Loaded, reason: string): Promise<void> {
    if (this.#plugins.get(plugin.found.name) !== plugin) return;
    const host = plugin.host;
    plugin.host = undefined;
    this.#unregisterTools(plugin.found.name);
    await host?.stop();
    if (plugin.manifest) plugin.view.tools = plugin.manifest.tools.map((t) => pluginToolView(t, plugin.manifest!, false));
    this.#holdTools(plugin, 'changed');
    this.#set(plugin, 'changed', reason);
  }

  /** The manifest's tools, told apart from unknown ones: a call answers TOOL_HELD with what releases them. */
  #holdTools(plugin: Loaded, status: 'new' | 'changed'): void {
    const name = plugin.found.name;
    const message = (tool: string) => heldToolMessage(name, tool, plugin.found.origin, status);
    this.options.registry.setHeld(`plugin:${name}`, new Map((plugin.manifest?.tools ?? []).map((t) => [t.name, message(t.name)])));
  }

  #hashNow(found: FoundPlugin): string | null {
    try {
      return hashPluginFolder(found.dir, { protectedFiles: this.#protectedFiles() }).hash;
    } catch {
      return null;
    }
  }

  /** The data directory's own files (owner secret, tokens, database): no plugin may hold a hard link to one. */
  #protectedFiles(): string[] {
    try {
      return readdirSync(this.options.dataDir)
        .map((name) => join(this.options.dataDir, name))
        .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
    } catch {
      return [];
    }
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
    this.#unregisterTools(name);
    this.options.registry.setHeld(`plugin:${name}`, new Map());
    await plugin.host?.stop();
  }

  #unregisterTools(name: string): void {
    for (const tool of this.options.registry.list()) if (tool.source === `plugin:${name}`) this.options.registry.unregister(tool.definition.name);
  }

  /**
   * What the plugin's process must read to run at all: its own files (each top-level entry that was hashed, so not
   * its .git), this gateway's child script, the API and how it resolves.
   */
  #codeReads(found: FoundPlugin, scan: FolderHash): string[] {
    const api = pluginApiFile();
    const own = [...new Set(scan.files.map((f) => f.path.split('/')[0]!))].map((entry) => join(found.dir, entry));
    return [
      ...own,
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

  #set(plugin: Loaded, status: PluginStatus, reason: string | null): void {
    if (this.#plugins.get(plugin.found.name) !== plugin) return;
    plugin.view.status = status;
    plugin.view.reason = reason;
    // Said once: a folder that stays broken is reloaded at every rescan, and would repeat itself each time.
    const said = `${status}: ${reason}`;
    if ((status === 'failed' || status === 'crashed') && this.#logged.get(plugin.found.name) !== said) this.options.log(`pincer: plugin ${plugin.found.name} ${said}`);
    this.#logged.set(plugin.found.name, said);
    this.options.events.emit('plugins', { name: plugin.view.name, status: plugin.view.status, reason: plugin.view.reason });
  }
}

function changedSinceShown(name: string): GatewayError {
  return new GatewayError('PLUGIN_STATE', `"${name}" changed since it was shown to you: look at it again (GET /plugins/${name}) before accepting it.`);
}

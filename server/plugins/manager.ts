import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayError } from '../errors.js';
import type { ProcessRunner } from '../process/index.js';
import { Sandbox, sandboxSupport } from '../process/sandbox.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { bundledPluginsDir, findPlugins, writeApiShim, type FoundPlugin } from './discover.js';
import { watchTree, type TreeWatch } from '../util/tree-watch.js';
import { bundledRecordFile, readBundledRecord, type BundledRecord } from './bundled.js';
import { pluginSandbox } from './launch.js';
import { dataDirFiles, hashNow, hashPluginFolder, type HashedFile } from './integrity.js';
import { readManifest, type ManifestTool } from './manifest.js';
import { ownFolders } from '../config/own-folders.js';
import { heldBecause, heldToolMessage } from './held.js';
import { loadingView, pluginToolView, type IgnoredPluginFolder, type PluginView } from './plugin-view.js';
import { diffPlugin, ownFirst } from './diff.js';
import type { Announcer } from '../events/bus.js';
import { LoadedPlugins, type Loaded } from './loaded.js';
import { PluginRunner, type PluginFetch } from './running.js';

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
  fetch: PluginFetch;
  log(line: string): void;
  /** Where status changes are announced (tools themselves are announced by the registry). */
  events: Announcer<'plugins'>;
  /** Quiet period before a change on disk is acted on. */
  debounceMs?: number;
  /** The OS sandbox plugin processes run in; default the one this machine has (none where there is none). */
  sandbox?: Sandbox;
}

const MAX_VIEW_FILES = 200;

/**
 * Finds, checks and pins plugins, follows their folders, and holds back what the owner has not accepted as it is on
 * disk now. Running an accepted plugin (its process, its tools in the registry) is the runner's (running.ts).
 */
export class PluginManager {
  readonly userDir: string;
  readonly #bundledDir: string | null;
  /** Pincer's package, bundled plugins and data folder: no plugin's write permission may reach them. */
  readonly #ownFolders: string[];
  /** The data folder (as it really is): no plugin's declared read may lead into it. */
  readonly #dataFolders: string[];
  readonly #bundledRecord: BundledRecord | null;
  #ignored: IgnoredPluginFolder[] = [];
  readonly #plugins: LoadedPlugins;
  readonly #runner: PluginRunner;
  #watchers: TreeWatch[] = [];
  #closed = false;
  #scan: Promise<void> = Promise.resolve();
  readonly #sandbox: Sandbox;

  constructor(private readonly options: PluginManagerOptions) {
    this.userDir = join(options.dataDir, 'plugins');
    this.#bundledDir = options.bundledDir === undefined ? bundledPluginsDir() : options.bundledDir;
    this.#sandbox = options.sandbox ?? new Sandbox(sandboxSupport());
    const own = ownFolders(options.dataDir, this.#bundledDir);
    this.#ownFolders = own.map((folder) => folder.path);
    this.#dataFolders = own.filter((folder) => folder.kind === 'data').map((folder) => folder.path);
    this.#bundledRecord = this.#bundledDir ? readBundledRecord(options.bundledRecord ?? bundledRecordFile()) : null;
    this.#plugins = new LoadedPlugins(options);
    this.#runner = new PluginRunner({
      ...options,
      userDir: this.userDir,
      bundledDir: this.#bundledDir,
      sandbox: this.#sandbox,
      plugins: this.#plugins,
      hold: (plugin, reason) => this.#hold(plugin, reason),
      rescan: () => this.rescan(),
    });
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
    return this.#plugins
      .all()
      .map((p) => p.view)
      .sort((a, b) => a.name.localeCompare(b.name));
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
    if (hashNow(plugin.found.dir, this.options.dataDir) !== scan.hash) {
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
    await Promise.all(this.#plugins.names().map((name) => this.#unload(name)));
  }

  #require(name: string): Loaded {
    const plugin = this.#plugins.get(name);
    if (!plugin) throw new GatewayError('NOT_FOUND', `No plugin named "${name}".`);
    return plugin;
  }

  async #rescanNow(): Promise<void> {
    if (this.#closed) return;
    const found = this.#discover();
    for (const name of this.#plugins.names()) if (!found.has(name)) await this.#unload(name);
    for (const plugin of found.values()) {
      const loaded = this.#plugins.get(plugin.name);
      if (loaded && loaded.view.hash !== null && loaded.view.hash === hashNow(plugin.dir, this.options.dataDir)) {
        const tampered = loaded.host ? this.#runner.buildProblem(loaded) : null;
        if (tampered) await this.#hold(loaded, tampered);
        continue;
      }
      await this.#reload(plugin);
    }
  }

  /** The plugin folders on disk now, by name; a user's folder named like a bundled plugin is set aside. */
  #discover(): Map<string, FoundPlugin> {
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
    return found;
  }

  async #reload(found: FoundPlugin): Promise<void> {
    await this.#unload(found.name);
    if (this.#closed) return;
    const generation = (this.#plugins.get(found.name)?.generation ?? 0) + 1;
    const view = loadingView(found, pluginSandbox(this.#sandbox.support));
    const plugin: Loaded = { found, view, generation, requests: new AbortController() };
    this.#plugins.set(plugin);
    try {
      await this.#load(plugin);
    } catch (error) {
      await plugin.host?.stop();
      plugin.host = undefined;
      this.#plugins.status(plugin, 'failed', (error as Error).message);
    }
  }

  /**
   * Security: until the owner accepted these very files, nothing of the plugin runs — not its entry, not a
   * top-level statement, not a build. Its folder is only read: hashed, and its manifest parsed.
   */
  async #load(plugin: Loaded): Promise<void> {
    const { found, view } = plugin;
    const scan = hashPluginFolder(found.dir, { protectedFiles: dataDirFiles(this.options.dataDir) });
    plugin.scan = scan;
    Object.assign(view, {
      hash: scan.hash,
      files: ownFirst(scan.files).slice(0, MAX_VIEW_FILES).map((f) => ({ path: f.path, size: f.size, ...(f.link !== undefined && { link: f.link }) })),
      file_count: scan.files.length,
      file_bytes: scan.bytes,
    });
    const manifest = readManifest(found.dir, found.name, this.#ownFolders, this.#dataFolders);
    plugin.manifest = manifest;
    Object.assign(view, { version: manifest.version, description: manifest.description, entry: manifest.entry, permissions: manifest.permissions });
    const accepted = this.options.store.plugins.get(found.name);
    view.accepted_at = accepted?.accepted_at ?? null;
    if (accepted?.disabled) {
      view.tools = manifest.tools.map((t) => pluginToolView(t, manifest, false));
      return this.#plugins.status(plugin, 'disabled', 'The owner disabled this plugin.');
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
      return this.#plugins.status(plugin, held.status, held.reason);
    }
    await this.#runner.run(plugin, manifest, scan, accepted?.hash);
  }

  /** An accepted plugin whose files no longer check out: stopped, its tools taken away and held, until accepted. */
  async #hold(plugin: Loaded, reason: string): Promise<void> {
    if (!this.#plugins.isCurrent(plugin)) return;
    const host = plugin.host;
    plugin.host = undefined;
    this.#runner.unregisterTools(plugin.found.name);
    await host?.stop();
    if (plugin.manifest) plugin.view.tools = plugin.manifest.tools.map((t) => pluginToolView(t, plugin.manifest!, false));
    this.#holdTools(plugin, 'changed');
    this.#plugins.status(plugin, 'changed', reason);
  }

  /** The manifest's tools, told apart from unknown ones: a call answers TOOL_HELD with what releases them. */
  #holdTools(plugin: Loaded, status: 'new' | 'changed'): void {
    const name = plugin.found.name;
    const message = (tool: string) => heldToolMessage(name, tool, plugin.found.origin, status);
    this.options.registry.setHeld(`plugin:${name}`, new Map((plugin.manifest?.tools ?? []).map((t) => [t.name, message(t.name)])));
  }

  async #unload(name: string): Promise<void> {
    const plugin = this.#plugins.get(name);
    if (!plugin) return;
    this.#plugins.delete(name);
    plugin.requests.abort(new Error(`the plugin ${name} stopped`));
    this.#runner.unregisterTools(name);
    this.options.registry.setHeld(`plugin:${name}`, new Map());
    await plugin.host?.stop();
  }
}

function changedSinceShown(name: string): GatewayError {
  return new GatewayError('PLUGIN_STATE', `"${name}" changed since it was shown to you: look at it again (GET /plugins/${name}) before accepting it.`);
}

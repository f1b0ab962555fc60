import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PluginFetchInit } from '../plugin-api.js';
import type { ProcessRunner } from '../process/index.js';
import type { Sandbox } from '../process/sandbox.js';
import type { HopCheck } from '../security/net.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { packagePath } from '../util/package-files.js';
import { buildEntry, syntaxErrorPlace } from './build.js';
import { pluginApiFile, writeApiShim, type FoundPlugin } from './discover.js';
import { BUNDLED_BY, CHANGED } from './held.js';
import { PluginHost } from './host.js';
import { allowedHosts } from './hosts.js';
import { hashNow, hashPluginFolder, type FolderHash } from './integrity.js';
import { childScript } from './launch.js';
import type { Loaded, LoadedPlugins } from './loaded.js';
import type { PluginManifest } from './manifest.js';
import { pluginToolView } from './plugin-view.js';
import type { DeclaredTool } from './protocol.js';
import { declaredToolProblem, pluginTool, toolMismatch } from './tools.js';

/** HTTP for plugins with the URL policy applied, and `checkHop` (the manifest's hosts) asked about every hop. */
export type PluginFetch = (
  url: string,
  init: PluginFetchInit & { signal: AbortSignal; timeoutMs: number; maxBytes: number; checkHop: HopCheck },
) => Promise<{ status: number; url: string; headers: Record<string, string>; body: Buffer }>;

export interface RunnerDeps {
  dataDir: string;
  userDir: string;
  bundledDir: string | null;
  registry: ToolRegistry;
  store: Store;
  runner: ProcessRunner;
  sandbox: Sandbox;
  /** Per-plugin settings: `plugins.<name>` in config.json. */
  settings(name: string): Record<string, unknown>;
  fetch: PluginFetch;
  log(line: string): void;
  plugins: LoadedPlugins;
  /** Takes a plugin whose files no longer check out off the air, its tools held until the owner accepts it again. */
  hold(plugin: Loaded, reason: string): Promise<void>;
  rescan(): Promise<void>;
}

/**
 * Runs a plugin the owner accepted: builds its entry, checks its files once more, starts its process, holds its
 * code to the tools its manifest declared, and registers those tools, all or none.
 */
export class PluginRunner {
  constructor(private readonly deps: RunnerDeps) {}

  /** Runs the plugin as loaded (its manifest and files); throws why it cannot run, and the plugin has failed. */
  async run(plugin: Loaded, manifest: PluginManifest, scan: FolderHash, acceptedHash: string | undefined): Promise<void> {
    const { found, view } = plugin;
    const { plugins } = this.deps;
    const entry = await buildEntry(found, manifest, this.deps.userDir, scan);
    if (!plugins.isCurrent(plugin)) return;
    if (entry.outDir) plugin.build = { dir: entry.outDir, hash: hashPluginFolder(entry.outDir).hash };
    const problem = this.readyToStart(plugin);
    if (problem) return this.deps.hold(plugin, problem);
    const code = [...new Set([...this.#codeReads(found, scan), ...entry.reads])];
    const host = this.#host(plugin, manifest, pathToFileURL(entry.file).href, code);
    plugin.host = host;
    const declared = await host.start().catch(async (error: Error) => {
      if (entry.outDir || !error.message.startsWith('SyntaxError: ')) throw error;
      const place = await syntaxErrorPlace(found, manifest, scan);
      throw new Error(place ? `${error.message} in ${place}` : error.message);
    });
    if (!plugins.isCurrent(plugin)) return void (await host.stop());
    for (const tool of declared) {
      const problem = declaredToolProblem(tool);
      if (problem) throw new Error(problem);
    }
    const mismatch = toolMismatch(manifest.tools, declared);
    if (mismatch) throw new Error(mismatch);
    if (found.origin === 'bundled' && acceptedHash !== view.hash) {
      // What disabling it keeps; never counted as the owner's acceptance.
      this.deps.store.plugins.accept({ name: found.name, hash: scan.hash, tools: manifest.tools, permissions: manifest.permissions, files: scan.files }, BUNDLED_BY);
      view.accepted_at = new Date().toISOString();
    }
    this.#register(plugin, declared, manifest);
    view.tools = declared.map((t) => pluginToolView(t, manifest, true));
    plugins.status(plugin, 'running', null);
  }

  /**
   * Checked right before its process starts (and restarts): its files and build still hash as accepted and built.
   * Returns why not. The API shim is the gateway's own: it is written again rather than trusted.
   */
  readyToStart(plugin: Loaded): string | null {
    if (plugin.found.origin === 'user') writeApiShim(this.deps.userDir);
    if (hashNow(plugin.found.dir, this.deps.dataDir) !== plugin.view.hash) {
      return CHANGED;
    }
    return this.buildProblem(plugin);
  }

  /** Why its build no longer hashes as Pincer wrote it, or null (also when it has no build). */
  buildProblem(plugin: Loaded): string | null {
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

  unregisterTools(name: string): void {
    const { registry } = this.deps;
    for (const tool of registry.list()) if (tool.source === `plugin:${name}`) registry.unregister(tool.definition.name);
  }

  #host(plugin: Loaded, manifest: PluginManifest, entryUrl: string, code: string[]): PluginHost {
    const { found, view } = plugin;
    const { plugins, dataDir } = this.deps;
    const { read, write, childProcess, workers, addons } = manifest.permissions;
    const launch = { name: found.name, dir: found.dir, entryUrl, code, read, write, childProcess, workers, addons, hidden: [dataDir], config: this.deps.settings(found.name) };
    return new PluginHost(launch, {
      runner: this.deps.runner,
      sandbox: this.deps.sandbox,
      fetch: (url, init) => this.#fetch(plugin, url, init),
      log: (level, message) => this.#log(plugin, level, message),
      onCrash: (reason, delayMs) => {
        view.restarts += 1;
        // Kept in its log: once it is back, its status no longer says why it went.
        plugins.keep(plugin, 'error', `its process ended: ${reason}`);
        plugins.status(plugin, 'crashed', `${reason}; restarting in ${Math.round(delayMs / 1000)} s`);
      },
      onRestarted: () => plugins.status(plugin, 'running', null),
      beforeRestart: () => {
        const refused = this.readyToStart(plugin);
        // Held, not restarted; a rescan then shows what changed.
        if (refused) void this.deps.hold(plugin, refused).then(() => this.deps.rescan());
        return refused;
      },
    });
  }

  /** All of a plugin's tools or none: a name taken by another tool fails the plugin, with the reason. */
  #register(plugin: Loaded, declared: DeclaredTool[], manifest: PluginManifest): void {
    const done: string[] = [];
    try {
      for (const tool of declared) {
        this.deps.registry.register(pluginTool(tool, manifest, () => plugin.host), `plugin:${manifest.name}`);
        done.push(tool.name);
      }
    } catch (error) {
      for (const name of done) this.deps.registry.unregister(name);
      throw error;
    }
  }

  /**
   * What the plugin's process must read to run at all: its own files (each top-level entry that was hashed, so not
   * its .git), this gateway's child script, the API and how it resolves.
   */
  #codeReads(found: FoundPlugin, scan: FolderHash): string[] {
    const api = pluginApiFile();
    const own = [...new Set(scan.files.map((f) => f.path.split('/')[0]!))].map((entry) => join(found.dir, entry));
    const { bundledDir, userDir } = this.deps;
    return [
      ...own,
      `${dirname(childScript())}/*`,
      // The package's own package.json: it makes the child script an ES module.
      packagePath('package.json'),
      api,
      // `pincer/plugin`: the small package beside the plugins that re-exports the API (user folder or bundled).
      `${join(found.origin === 'bundled' && bundledDir ? bundledDir : userDir, 'node_modules', 'pincer')}/*`,
    ];
  }

  async #fetch(plugin: Loaded, url: string, init: PluginFetchInit) {
    let first: URL;
    try {
      first = new URL(url);
    } catch {
      throw new Error(`"${url}" is not a URL`);
    }
    const allowed = allowedHosts(plugin.manifest!, this.deps.settings(plugin.found.name));
    const refusal: HopCheck = (target) => {
      const host = target.hostname.toLowerCase();
      if (allowed.has(host)) return null;
      return { rule: 'plugin:hosts', reason: `the plugin may not reach ${host}: its manifest lists ${[...allowed].join(', ') || 'no hosts'} (permissions.hosts)` };
    };
    const refused = refusal(first);
    if (refused) throw new Error(refused.reason);
    // The request's own time limit is the network guard's (its error names the host and the limit); the signal only
    // ends the requests of a plugin that stopped.
    const timeoutMs = Math.min(Math.max(init.timeoutMs ?? 15_000, 100), 120_000);
    const maxBytes = Math.min(init.maxBytes ?? 5 * 2 ** 20, 32 * 2 ** 20);
    // Security: every redirect is held to the declared hosts too, or a declared host that redirects would take the
    // plugin to any host the URL policy lets through (internal ones in http_allow included). The guard refuses such a
    // hop before looking it up or connecting.
    return this.deps.fetch(url, { ...init, timeoutMs, maxBytes, signal: plugin.requests.signal, checkHop: refusal });
  }

  #log(plugin: Loaded, level: string, message: string): void {
    if (level === 'warn' || level === 'error') {
      this.deps.plugins.keep(plugin, level, message);
      this.deps.log(`pincer: plugin ${plugin.found.name}: ${message.slice(0, 500)}`);
    }
  }
}

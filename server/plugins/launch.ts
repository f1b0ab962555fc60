import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ChildHandle, ProcessRunner, SandboxWrapper } from '../process/index.js';
import { scrubbedEnvironment } from '../process/index.js';
import type { SandboxScope, SandboxSupport } from '../process/sandbox.js';
import { builtPath } from '../util/package-files.js';
import { realOrResolved } from '../util/real-path.js';
import { unpackedPath } from '../util/unpacked.js';

const HEAP_MB = 256;

/** The plugin process's script: always the build's (a plugin process runs plain JavaScript, even under tests). */
export function childScript(): string {
  return unpackedPath(builtPath('server', 'plugins', 'child.js'));
}

export interface HostLaunch {
  name: string;
  /** The folder the plugin runs in. */
  dir: string;
  /** The module to import (a file URL): the entry, or its build. */
  entryUrl: string;
  /**
   * What runs the plugin, read-only: its folder, its build, the child script, the plugin API and its shim (folders
   * end with `/*`). The sandbox shows these even inside the hidden folders (a user's plugin lies in the data folder).
   */
  code: string[];
  /** Paths its manifest lets it read (folders end with `/*`) and write, and the flags it gets. */
  read: string[];
  write: string[];
  childProcess: boolean;
  workers: boolean;
  addons: boolean;
  /** Folders the sandbox never shows, even where a declared path holds them (the data folder). */
  hidden: string[];
  config: Record<string, unknown>;
}

/** How a plugin's process is contained here, as GET /plugins shows it. */
export interface PluginSandboxView {
  kind: SandboxSupport['kind'];
  detail: string;
}

/** What contains a plugin's process where the gateway runs, in words for the owner. */
export function pluginSandbox(support: SandboxSupport): PluginSandboxView {
  const inside = "Node's permission model applies inside it too.";
  switch (support.kind) {
    case 'bubblewrap':
      return {
        kind: 'bubblewrap',
        detail: `bubblewrap: its own process namespace (it cannot signal the gateway or see other processes), no network (its HTTP goes through the gateway), its folder read-only, a private scratch folder, no home or data folder. ${inside}`,
      };
    case 'sandbox-exec':
      return {
        kind: 'sandbox-exec',
        detail: `macOS sandbox-exec: files limited to its folder, what it declared and a private scratch folder, no network (its HTTP goes through the gateway); signals to other processes are not blocked. ${inside}`,
      };
    default:
      return {
        kind: 'none',
        detail: `${support.detail} It runs under Node's permission model alone, which cannot stop raw network sockets or signals to other processes.`,
      };
  }
}

/**
 * Paths as Node's permission flags take them: a folder as `folder/*`, each path once. Node 20 aborts at start when
 * one path is given twice, or both as `folder` and `folder/*`.
 */
export function permissionPaths(paths: string[]): string[] {
  const byBase = new Map<string, boolean>();
  for (const path of paths) {
    const wildcard = path.endsWith('/*');
    const base = wildcard ? path.slice(0, -2) : path.replace(/\/+$/, '');
    const isFolder = wildcard || statSync(base, { throwIfNoEntry: false })?.isDirectory() === true;
    byBase.set(base, (byBase.get(base) ?? false) || isFolder);
  }
  return [...byBase].map(([base, folder]) => (folder ? `${base}/*` : base));
}

/**
 * What the sandbox shows the process: its code read-only (bound last, so inside the data folder too), the paths
 * its manifest declares, no network ever — its HTTP goes over its pipe to the gateway, which applies the URL
 * policy and the manifest's hosts. Nothing else of the machine: no home folder, no data folder, no other process.
 */
export function sandboxScope(launch: HostLaunch): SandboxScope {
  const bare = (path: string) => (path.endsWith('/*') ? path.slice(0, -2) : path);
  // Security: a declared path never replaces the sandbox's own /proc, /dev or /sys with the machine's (another
  // process's /proc/<pid>/environ holds the gateway's token), nor leads there through a link.
  const bindable = (path: string) => [path, realOrResolved(path)].every((p) => p !== '/' && !/^\/(proc|dev|sys)(\/|$)/.test(p));
  return {
    readWrite: [],
    readOnly: launch.read.map(bare).filter(bindable),
    // A file it may create does not exist yet: its folder is bound (Node's permission model still holds it to the file).
    writable: launch.write.map(bare).map((path) => (existsSync(path) ? path : dirname(path))).filter(bindable),
    hidden: launch.hidden,
    network: false,
    // Its folder whole, read-only (the permission flags still name only the files it was accepted with).
    program: [launch.dir, ...launch.code.map(bare)],
  };
}

/** Node's permission flags for the process: what it may read, write and start, and its heap. */
function permissionFlags(launch: HostLaunch, scratch: string): string[] {
  const { code, read, write, childProcess, workers, addons } = launch;
  // One flag per path: Node 20 reads a comma-separated list wrongly.
  return [
    '--experimental-permission',
    ...permissionPaths([...code, ...read, `${scratch}/*`]).map((path) => `--allow-fs-read=${path}`),
    ...permissionPaths([...write, `${scratch}/*`]).map((path) => `--allow-fs-write=${path}`),
    ...(childProcess ? ['--allow-child-process'] : []),
    ...(workers ? ['--allow-worker'] : []),
    ...(addons ? ['--allow-addons'] : []),
    `--max-old-space-size=${HEAP_MB}`,
    '--disable-warning=ExperimentalWarning',
  ];
}

/**
 * Starts the process in a private scratch folder (its HOME and TMPDIR) that lives as long as it does: the runner
 * removes the folder once the process has exited, and after a crash of the gateway at the next start.
 */
export function spawnPlugin(launch: HostLaunch, runner: ProcessRunner, sandbox: SandboxWrapper | undefined): Promise<ChildHandle> {
  return new Promise((resolve, reject) => {
    runner
      .withScratch(`plugin:${launch.name}`, 'plugin', async (scratch) => {
        const child = await runner.start({
          kind: `plugin:${launch.name}`,
          command: process.execPath,
          args: [...permissionFlags(launch, scratch), childScript()],
          cwd: launch.dir,
          env: scrubbedEnvironment({
            set: {
              HOME: scratch,
              TMPDIR: scratch,
              // Inside the desktop app, process.execPath is Electron: this makes it the Node runtime it carries.
              ...(process.versions.electron && { ELECTRON_RUN_AS_NODE: '1' }),
            },
          }),
          scratch,
          channel: 'fd3',
          ...(sandbox && { sandbox }),
        });
        resolve(child);
        await child.exited;
      })
      .catch(reject);
  });
}

import { createSearchToolsTool, type ToolFinder } from './tools/builtin/search-tools.js';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, type PincerConfig } from './config/config.js';
import type { DesktopBridge } from './desktop.js';
import type { EventBus } from './events/bus.js';
import type { Memories } from './memory/memories.js';
import { desktopAnalyzers } from './policy/analyzers/desktop.js';
import { fileAnalyzers } from './policy/analyzers/files.js';
import { httpAnalyzers } from './policy/analyzers/http.js';
import { pythonAnalyzers } from './policy/analyzers/python.js';
import { shellAnalyzers } from './policy/analyzers/shell.js';
import type { Analyzer } from './policy/policy.js';
import type { ProcessRunner } from './process/index.js';
import { NetGuard } from './security/net.js';
import { PathGuard, type CheckedRoots } from './security/path-guard.js';
import { codeFolders, dataFolders, ownFolders } from './config/own-folders.js';
import { Sandbox, sandboxSupport, type SandboxSupport } from './process/sandbox.js';
import { PythonAnalyzer } from './security/python.js';
import { ShellAnalyzer } from './security/shell/analyzer.js';
import type { AnyTool, SandboxGrant } from './tools/types.js';
import { calculateTool } from './tools/builtin/calculate.js';
import { createClipboardTool } from './tools/builtin/clipboard.js';
import { createFileDeleteTool } from './tools/builtin/file-delete.js';
import { createFileListTool } from './tools/builtin/file-list.js';
import { createFileReadTool } from './tools/builtin/file-read.js';
import { createFileWriteTool } from './tools/builtin/file-write.js';
import { createForgetTool } from './tools/builtin/forget.js';
import { getTimeTool } from './tools/builtin/get-time.js';
import { createHttpGetTool } from './tools/builtin/http-get.js';
import { createHttpPostTool } from './tools/builtin/http-post.js';
import { jsonParseTool } from './tools/builtin/json-parse.js';
import { createNotifyTool } from './tools/builtin/notify.js';
import { createRecallTool } from './tools/builtin/recall.js';
import { createRememberTool } from './tools/builtin/remember.js';
import { createRunPythonTool } from './tools/builtin/run-python.js';
import { createRunShellTool } from './tools/builtin/run-shell.js';
import { textProcessTool } from './tools/builtin/text-process.js';
import { createWebSearchTool } from './tools/builtin/web-search.js';

export interface BuiltinDeps {
  config: PincerConfig;
  events: EventBus;
  desktop: DesktopBridge | undefined;
  /** The port the gateway listens on, once known: the HTTP tools must never call the gateway itself. */
  selfPort: () => number | undefined;
  /** Starts every child process of the tools and the Python check, so the gateway can stop them all. */
  runner: ProcessRunner;
  /** The memory store remember, recall and forget work on. */
  memories: Memories;
  /** Where the bundled plugins are, when not the package's own `plugins/` (null: none); kept unwritable too. */
  bundledPluginsDir?: string | null;
  /** What search_tools searches with: the caller's own tools in the gateway's tool index. */
  findTools: ToolFinder;
}

/**
 * The built-in tools (one file each under tools/builtin/) and the analyzers that judge each call of those that touch
 * the machine, wired to the same guards: the path guard the file tools act through is the one their analyzers judge
 * with, and replacing the roots replaces them for both at once.
 */
export interface Builtins {
  tools: AnyTool[];
  analyzers: Record<string, Analyzer>;
  /** The folders the file tools, their analyzers and run_shell work in, replaceable while the gateway runs. */
  roots: RootsControl;
  /** Whether run_shell and run_python really run in an OS sandbox here, and which. */
  sandbox: SandboxSupport;
}

export interface RootsControl {
  /** Checks folders as roots (exist, folders, not Pincer's own folders) without using them; throws naming the bad one. */
  check(roots: readonly string[]): CheckedRoots;
  /** Puts checked roots to use for every call judged or run from now on. */
  replace(roots: CheckedRoots): void;
}

export function createBuiltins(deps: BuiltinDeps): Builtins {
  const { config, events, desktop, runner } = deps;
  // Security: the data directory (database, tokens, owner secret, config) is out of bounds for every tool, so no
  // tool can change policy, rules, roots or tokens; Pincer's own code and bundled plugins may be read (inside a
  // root) but never written, since they run as Pincer.
  const own = ownFolders(config.dataDir, deps.bundledPluginsDir);
  const data = dataFolders(own);
  const code = codeFolders(own);
  const paths = configured('roots', () => PathGuard.create({ roots: config.roots, protectedDirs: data, readOnlyDirs: code }));
  const net = configured('http_allow', () => new NetGuard({ allow: config.httpAllow, selfPort: deps.selfPort }));
  // The checker and the runner use the same interpreter: what was analysed is what runs.
  const python = new PythonAnalyzer({ runner });
  // The second wall: run_shell and run_python run in an OS sandbox that sees the roots, never the data folder.
  const sandbox = new Sandbox(sandboxSupport());
  const sandboxFor = (grant: SandboxGrant | undefined) =>
    grant?.unsandboxed
      ? undefined
      : sandbox.wrapper({
          readWrite: paths.roots,
          readOnly: grant?.reads ?? [],
          // A file an approved call creates outside the roots does not exist yet: its folder is what it writes in.
          writable: (grant?.writes ?? []).map((path) => (existsSync(path) ? path : dirname(path))),
          hidden: data,
          locked: paths.readOnlyDirs,
          network: grant?.network ?? false,
        });
  // The shell analysis knows the roots (wiping one is catastrophic): it is rebuilt with them when they change.
  const shellFor = (roots: readonly string[]) =>
    shellAnalyzers(new ShellAnalyzer({ protectedPaths: data, readOnlyPaths: code, roots: [...roots] }), paths).run_shell!;
  let runShell = shellFor(paths.roots);
  /**
   * A command runs in a folder the path guard lets it list: inside a root, never in the data directory. With no
   * root shared, run_shell refuses (the guard's path:no-roots, naming how to share one) rather than running in a
   * scratch folder: its checks judge relative paths from the roots, so with none a command's `../..` would go unjudged
   * wherever there is no OS sandbox, and what is left (commands that touch no file) calculate, get_time and
   * run_python already do.
   */
  const resolveCwd = async (cwd: string | undefined) => {
    const verdict = await paths.check(cwd ?? paths.roots[0] ?? '.', 'list');
    return verdict.decision.decision === 'deny' || !verdict.resolved
      ? { ok: false as const, message: verdict.decision.reason }
      : { ok: true as const, path: verdict.resolved };
  };

  const tools = [
    calculateTool,
    jsonParseTool,
    textProcessTool,
    getTimeTool,
    createFileReadTool(paths),
    createFileWriteTool(paths),
    createFileListTool(paths),
    createFileDeleteTool(paths),
    createHttpGetTool(net),
    createHttpPostTool(net),
    createWebSearchTool(net, config.webSearch),
    createRunShellTool({ resolveCwd, runner, sandbox: sandboxFor }),
    createRunPythonTool({ runner, sandbox: sandboxFor }),
    createNotifyTool({ events, desktop }),
    createClipboardTool({ desktop, runner }),
    createRememberTool(deps.memories),
    createRecallTool(deps.memories),
    createForgetTool(deps.memories),
    createSearchToolsTool(deps.findTools),
  ] as AnyTool[];
  const analyzers: Record<string, Analyzer> = {
    ...fileAnalyzers(paths),
    ...httpAnalyzers(net, config.webSearch),
    run_shell: (args) => runShell(args),
    ...pythonAnalyzers(python, { code, data }),
    ...desktopAnalyzers(),
  };
  const roots: RootsControl = {
    check: (list) => paths.checkRoots(list),
    replace(checked) {
      // Both in one synchronous step: no call is judged with the new path roots and the old shell roots.
      const nextShell = shellFor(checked);
      paths.replaceRoots(checked);
      runShell = nextShell;
    },
  };
  return { tools, analyzers, roots, sandbox: sandbox.support };
}

/** A setting that cannot be put to use stops start-up with one line naming it. */
function configured<T>(key: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${key}: ${(error as Error).message}`);
  }
}

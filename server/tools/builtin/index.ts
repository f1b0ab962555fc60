import { ConfigError, type PincerConfig } from '../../config/config.js';
import type { DesktopBridge } from '../../desktop.js';
import type { EventBus } from '../../events/bus.js';
import { desktopAnalyzers } from '../../policy/analyzers/desktop.js';
import { fileAnalyzers } from '../../policy/analyzers/files.js';
import { httpAnalyzers } from '../../policy/analyzers/http.js';
import { pythonAnalyzers } from '../../policy/analyzers/python.js';
import { shellAnalyzers } from '../../policy/analyzers/shell.js';
import type { Analyzer } from '../../policy/policy.js';
import type { ProcessRunner } from '../../process/index.js';
import type { SubjectOf } from '../../policy/rules.js';
import { NetGuard } from '../../security/net.js';
import { PathGuard, type CheckedRoots, type PathAccess } from '../../security/paths.js';
import { PythonAnalyzer } from '../../security/python.js';
import { ShellAnalyzer } from '../../security/shell/analyzer.js';
import type { AnyTool } from '../types.js';
import { calculateTool } from './calculate.js';
import { createClipboardTool } from './clipboard.js';
import { createFileDeleteTool } from './file-delete.js';
import { createFileListTool } from './file-list.js';
import { createFileReadTool } from './file-read.js';
import { createFileWriteTool } from './file-write.js';
import { getTimeTool } from './get-time.js';
import { createHttpGetTool } from './http-get.js';
import { createHttpPostTool } from './http-post.js';
import { jsonParseTool } from './json-parse.js';
import { createNotifyTool } from './notify.js';
import { createRunPythonTool } from './run-python.js';
import { createRunShellTool } from './run-shell.js';
import { textProcessTool } from './text-process.js';
import { createWebSearchTool } from './web-search.js';

export interface BuiltinDeps {
  config: PincerConfig;
  events: EventBus;
  desktop: DesktopBridge | undefined;
  /** The port the gateway listens on, once known: the HTTP tools must never call the gateway itself. */
  selfPort: () => number | undefined;
  /** Starts every child process of the tools and the Python check, so the gateway can stop them all. */
  runner: ProcessRunner;
}

/** The built-in tools, one file each, and the analyzers that judge each call of those that touch the machine. */
export interface Builtins {
  tools: AnyTool[];
  analyzers: Record<string, Analyzer>;
  /** What a call touches (a resolved path, a host, a command), for rules scoped to it. */
  subjectOf: SubjectOf;
  /** The folders the file tools, their analyzers and run_shell work in, replaceable while the gateway runs. */
  roots: RootsControl;
}

export interface RootsControl {
  /** Checks folders as roots (exist, folders, outside the data directory) without using them; throws naming the bad one. */
  check(roots: readonly string[]): CheckedRoots;
  /** Puts checked roots to use for every call judged or run from now on. */
  replace(roots: CheckedRoots): void;
}

const FILE_ACCESS: Record<string, PathAccess> = { file_read: 'read', file_write: 'write', file_list: 'list', file_delete: 'delete' };

export function createBuiltins(deps: BuiltinDeps): Builtins {
  const { config, events, desktop, runner } = deps;
  // Security: the data directory (database, tokens, owner secret, config) is out of bounds for every tool, so no
  // tool can change policy, rules, roots or tokens.
  const paths = configured('roots', () => PathGuard.create({ roots: config.roots, protectedDirs: [config.dataDir] }));
  const net = configured('http_allow', () => new NetGuard({ allow: config.httpAllow, selfPort: deps.selfPort }));
  // The checker and the runner use the same interpreter: what was analysed is what runs.
  const python = new PythonAnalyzer({ runner });
  // The shell analysis knows the roots (wiping one is catastrophic): it is rebuilt with them when they change.
  const shellFor = (roots: readonly string[]) =>
    shellAnalyzers(new ShellAnalyzer({ protectedPaths: [config.dataDir], roots: [...roots] }), paths).run_shell!;
  let runShell = shellFor(paths.roots);
  /** A command runs in a folder the path guard lets it list: inside a root, never in the data directory. */
  const resolveCwd = async (cwd: string | undefined) => {
    const verdict = await paths.check(cwd ?? paths.roots[0]!, 'list');
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
    createRunShellTool({ resolveCwd, runner }),
    createRunPythonTool({ runner }),
    createNotifyTool({ announce: (notification) => events.emit('notify', notification), desktop }),
    createClipboardTool({ desktop, runner }),
  ] as AnyTool[];
  const analyzers: Record<string, Analyzer> = {
    ...fileAnalyzers(paths),
    ...httpAnalyzers(net, config.webSearch),
    run_shell: (args) => runShell(args),
    ...pythonAnalyzers(python),
    ...desktopAnalyzers(),
  };
  const subjectOf: SubjectOf = async (tool, args) => {
    if (FILE_ACCESS[tool]) return { path: (await paths.check(args.path, FILE_ACCESS[tool])).resolved };
    if (tool === 'run_shell') {
      const cwd = await paths.check(args.cwd ?? paths.roots[0], 'list');
      return { command: typeof args.command === 'string' ? args.command : undefined, path: cwd.resolved };
    }
    if (tool === 'http_get' || tool === 'http_post') {
      try {
        return { host: new URL(String(args.url)).hostname.toLowerCase().replace(/^\[|\]$/g, '') };
      } catch {
        return {};
      }
    }
    return {};
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
  return { tools, analyzers, subjectOf, roots };
}

/** A setting that cannot be put to use stops start-up with one line naming it. */
function configured<T>(key: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${key}: ${(error as Error).message}`);
  }
}

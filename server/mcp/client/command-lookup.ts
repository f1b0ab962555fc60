import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { posix, win32 } from 'node:path';

/**
 * Finds the program an imported stdio server's `command` names (`npx`, `uvx`, `node`, `python`…) the way the
 * user's login shell would. A desktop app on macOS gets launchd's bare PATH, without Homebrew, nvm or ~/.local/bin:
 * the login shell is asked for its PATH once. On Windows `npx` is `npx.cmd`, found through PATHEXT, and a `.cmd` or
 * `.bat` runs through cmd.exe with its arguments quoted for it (Node refuses to start one directly).
 */

export interface CommandLookupOptions {
  platform: NodeJS.Platform;
  /** Where PATH, PATHEXT, ComSpec and SHELL come from (the server's own environment). */
  env: Record<string, string | undefined>;
  /** The login shell's PATH; undefined when it cannot be asked. Called at most once per lookup. */
  loginShellPath?: () => Promise<string | undefined>;
  /** Where the server runs: a relative `command` (`./bin/server`) is found from there, as the system would. */
  cwd?: string;
  /** Whether `file` is a program that can be started (default: a file with the execute bit; on Windows, a file). */
  isProgram?: (file: string, platform: NodeJS.Platform) => boolean;
}

/** What to start, and the PATH it was found on (the server gets that PATH, so `#!/usr/bin/env node` works too). */
export interface FoundCommand {
  command: string;
  args: string[];
  path: string;
  /** Windows: the arguments are already quoted for cmd.exe and must be passed as they are. */
  verbatim: boolean;
}

export interface MissingCommand {
  problem: string;
  path: string;
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/** The program `command` names, or why it cannot be started, naming the PATH that was searched. */
export async function findCommand(command: string, args: readonly string[], options: CommandLookupOptions): Promise<FoundCommand | MissingCommand> {
  const windows = options.platform === 'win32';
  const paths = windows ? win32 : posix;
  const isProgram = options.isProgram ?? defaultIsProgram;
  const own = envValue(options.env, 'PATH', windows) ?? '';
  const explicit = windows ? /[\\/:]/.test(command) : command.includes('/');
  let searched = own;
  const given = explicit && !paths.isAbsolute(command) && options.cwd ? paths.resolve(options.cwd, command) : command;
  const lookIn = (path: string) => (explicit ? candidates(given, options, windows) : splitPath(path, windows).flatMap((dir) => candidates(paths.join(dir, command), options, windows)));
  let file = lookIn(own).find((f) => isProgram(f, options.platform));
  // macOS apps never see the login shell's PATH; elsewhere it is asked only when the program is not on the one we have.
  if (!explicit && !windows && options.loginShellPath && (options.platform === 'darwin' || !file)) {
    const login = await options.loginShellPath().catch(() => undefined);
    if (login) {
      searched = mergePaths(login, own);
      file = lookIn(searched).find((f) => isProgram(f, options.platform)) ?? file;
    }
  }
  if (!file) {
    const problem = explicit
      ? `the command "${command}" does not exist or cannot be run; check the path in "command"`
      : `the command "${command}" was not found on the PATH (searched: ${searched || '(empty)'}); install it, or give its full path as "command"`;
    return { problem, path: searched };
  }
  if (windows && /\.(cmd|bat)$/i.test(file)) {
    // The server's scrubbed environment keeps SYSTEMROOT but not ComSpec.
    const root = envValue(options.env, 'SystemRoot', true);
    const shell = envValue(options.env, 'ComSpec', true) ?? (root ? win32.join(root, 'System32', 'cmd.exe') : 'cmd.exe');
    return { command: shell, args: ['/d', '/s', '/c', `"${[quoteForCmd(file, false), ...args.map((a) => quoteForCmd(a, true))].join(' ')}"`], path: searched, verbatim: true };
  }
  return { command: file, args: [...args], path: searched, verbatim: false };
}

/** The login shell's PATH, asked once (a second caller gets the same answer); undefined if it fails or takes too long. */
export function loginShellPath(options: { env: Record<string, string | undefined>; shell?: string; timeoutMs?: number }): () => Promise<string | undefined> {
  let asked: Promise<string | undefined> | undefined;
  return () => {
    asked ??= askLoginShell(options.shell ?? options.env.SHELL ?? defaultShell(), options.env, options.timeoutMs ?? 5_000);
    return asked;
  };
}

const MARK = '__PINCER_PATH__';

function askLoginShell(shell: string, env: Record<string, string | undefined>, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    // Between marks: what the shell's startup files print around it (a banner, a greeting) is not the PATH.
    const child = execFile(
      shell,
      ['-ilc', `printf '%s%s%s' '${MARK}' "$PATH" '${MARK}'`],
      { env: definedOnly(env), timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, windowsHide: true },
      (_error, stdout) => {
        const match = new RegExp(`${MARK}(.*?)${MARK}`, 's').exec(String(stdout));
        resolve(match?.[1]?.trim() || undefined);
      },
    );
    // An interactive shell reads nothing from us: it must not wait for input.
    child.stdin?.end();
  });
}

function defaultShell(): string {
  try {
    return userInfo().shell || '/bin/sh';
  } catch {
    return '/bin/sh';
  }
}

function candidates(base: string, options: CommandLookupOptions, windows: boolean): string[] {
  if (!windows) return [base];
  const extensions = (envValue(options.env, 'PATHEXT', true) ?? DEFAULT_PATHEXT).split(';').filter(Boolean);
  const has = extensions.some((ext) => base.toLowerCase().endsWith(ext.toLowerCase()));
  return has ? [base] : extensions.map((ext) => `${base}${ext.toLowerCase()}`);
}

/** Security: a relative entry (`.`, `bin`) would find a program in whatever folder the server starts in. */
function splitPath(path: string, windows: boolean): string[] {
  return path
    .split(windows ? ';' : ':')
    .map((dir) => (windows ? dir.replace(/^"(.*)"$/, '$1') : dir))
    .filter((dir) => dir !== '' && (windows ? win32 : posix).isAbsolute(dir));
}

function mergePaths(first: string, then: string): string {
  return [...new Set([...first.split(':'), ...then.split(':')].filter(Boolean))].join(':');
}

/** Windows environment names are case-insensitive (`Path`, `PATHEXT`, `ComSpec`). */
function envValue(env: Record<string, string | undefined>, name: string, windows: boolean): string | undefined {
  if (!windows) return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function defaultIsProgram(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * One word of a cmd.exe command line: quoted with backslashes doubled before quotes (the rules the program reads its
 * arguments by), then every character cmd.exe itself acts on escaped with ^. Security: an argument such as
 * `x" & calc & "` stays one argument instead of running a second command. A `.cmd` file passes its arguments through
 * cmd.exe a second time, so they are escaped twice.
 */
export function quoteForCmd(word: string, argument: boolean): string {
  const meta = /([()\][%!^"`<>&|;, *?])/g;
  if (!argument) return word.replace(meta, '^$1');
  let quoted = word.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  quoted = `"${quoted}"`;
  return quoted.replace(meta, '^$1').replace(meta, '^$1');
}

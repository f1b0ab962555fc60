import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeConfigFile } from '../../config/config-file.js';

/**
 * The package a stdio server's command line runs through a package runner (`npx [-y] pkg`, `uvx pkg`), and, for
 * npx, the version that ran: without a pinned version npx installs whatever is newest, so the code behind a server's
 * tools can change between two starts with no definition changing.
 */
export interface RunPackage {
  runner: 'npx' | 'uvx';
  name: string;
  /** As written on the command line (`@scope/pkg`, `pkg@1.2.3`, `pkg==1.2.3`). */
  spec: string;
  /** The exact version written on the command line (what runs cannot change without the owner editing it), or null. */
  pinned: string | null;
}

/** The package and its version (pinned, or the one that ran; null when it could not be found), shown in the server's view. */
export interface PackageView extends RunPackage {
  version: string | null;
}

const EXACT = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;
/** npx flags that leave the first word after them the package to run. */
const NPX_PLAIN_FLAGS = new Set(['-y', '--yes', '-q', '--quiet', '--prefer-online', '--prefer-offline', '--no-install']);

/** The package `command args` runs, if it is an npx or uvx command line Pincer understands; undefined otherwise. */
export function runPackage(command: string, args: readonly string[]): RunPackage | undefined {
  const runner = (command.split(/[\\/]/).pop() ?? '').replace(/\.(cmd|exe|bat)$/i, '').toLowerCase();
  if (runner === 'npx') {
    let i = 0;
    while (i < args.length && NPX_PLAIN_FLAGS.has(args[i]!)) i++;
    if (args[i] === '--') i++;
    const spec = args[i];
    // Other flags (--package, -c) change which package runs: not guessed at.
    if (!spec || spec.startsWith('-')) return undefined;
    const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
    const name = at < 0 ? spec : spec.slice(0, at);
    if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name)) return undefined;
    const version = at >= 0 ? spec.slice(at + 1) : '';
    return { runner, name, spec, pinned: EXACT.test(version) ? version.replace(/^v/, '') : null };
  }
  if (runner === 'uvx') {
    let spec: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '--from') spec = args[++i];
      else if (arg.startsWith('--from=')) spec = arg.slice('--from='.length);
      else if (arg.startsWith('-')) continue;
      else {
        spec ??= arg;
        break;
      }
    }
    if (!spec) return undefined;
    const pinnedPyPi = /^([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?(?:==|@)(\S+)$/.exec(spec);
    if (pinnedPyPi) return { runner, name: pinnedPyPi[1]!, spec, pinned: /^\d+(\.\d+)*([a-z0-9.+-]*)$/i.test(pinnedPyPi[2]!) ? pinnedPyPi[2]! : null };
    // A git source pinned to a tag or commit (git+https://…/repo@v1.2.3).
    const git = /^git\+(\S+?)@([^/@\s]+)$/.exec(spec);
    if (git) return { runner, name: git[1]!, spec, pinned: git[2]! };
    return { runner, name: spec.replace(/^git\+/, ''), spec, pinned: null };
  }
  return undefined;
}

/**
 * The version of `pkg` that npx ran: read from npx's cache, `<npm cache>/_npx/<hash>/node_modules/<name>/package.json`,
 * where the folder's hash is the first 16 hex digits of the SHA-512 of the specs npx was given (one here), and the
 * folder's own package.json names those specs. Undefined when it is not there (npx found the package installed
 * locally or globally, or the cache lives elsewhere).
 */
export function npxRanVersion(pkg: RunPackage, env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): string | undefined {
  const cache = npmCacheDir(env, platform);
  if (!cache) return undefined;
  const folder = join(cache, '_npx', createHash('sha512').update(pkg.spec).digest('hex').slice(0, 16));
  const own = readJson(join(folder, 'package.json')) as { _npx?: { packages?: unknown } } | undefined;
  const packages = own?._npx?.packages;
  if (own && Array.isArray(packages) && !(packages.length === 1 && packages[0] === pkg.spec)) return undefined;
  const installed = readJson(join(folder, 'node_modules', ...pkg.name.split('/'), 'package.json')) as { version?: unknown } | undefined;
  return typeof installed?.version === 'string' ? installed.version : undefined;
}

/** npm's cache folder: `npm_config_cache`, else `cache=` in ~/.npmrc, else `~/.npm` (Windows: `%LocalAppData%\npm-cache`). */
function npmCacheDir(env: Record<string, string | undefined>, platform: NodeJS.Platform): string | undefined {
  const named = Object.entries(env).find(([k]) => k.toLowerCase() === 'npm_config_cache')?.[1];
  if (named) return named;
  const home = platform === 'win32' ? (env.USERPROFILE ?? env.HOME) : env.HOME;
  if (home) {
    const rc = existsSync(join(home, '.npmrc')) ? readFileSync(join(home, '.npmrc'), 'utf8') : '';
    const line = /^\s*cache\s*=\s*(.+?)\s*$/m.exec(rc)?.[1];
    if (line) return line.replace(/^~(?=[\\/])/, home);
  }
  if (platform === 'win32') return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'npm-cache') : undefined;
  return home ? join(home, '.npm') : undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

interface AcceptedVersions {
  /** The version the owner accepted the server's tools with (the first one that ran, until they accept another). */
  version: string;
  /** Tools accepted by name at another version since. */
  tools?: Record<string, string>;
}

/**
 * The package versions the owner accepted each server's tools with, in `mcp-packages.json` in the data directory
 * (0600, replaced atomically; without a data directory, kept in memory). The first version seen is taken as
 * accepted: the tools are new then and reviewed as such.
 */
export class PackageVersions {
  readonly #file: string | undefined;
  #versions: Record<string, AcceptedVersions>;

  constructor(dataDir?: string) {
    this.#file = dataDir ? join(dataDir, 'mcp-packages.json') : undefined;
    const read = this.#file ? readJson(this.#file) : undefined;
    this.#versions = read && typeof read === 'object' && !Array.isArray(read) ? (read as Record<string, AcceptedVersions>) : {};
  }

  /** The version `tool` of `server` was accepted with; undefined before any version of the server was seen. */
  accepted(server: string, tool: string): string | undefined {
    const entry = Object.hasOwn(this.#versions, server) ? this.#versions[server] : undefined;
    if (!entry || typeof entry.version !== 'string') return undefined;
    const byName = entry.tools && Object.hasOwn(entry.tools, tool) ? entry.tools[tool] : undefined;
    return typeof byName === 'string' ? byName : entry.version;
  }

  /** A version ran: the first one for a server is its accepted one. */
  seen(server: string, version: string): void {
    if (Object.hasOwn(this.#versions, server) && typeof this.#versions[server]!.version === 'string') return;
    this.#versions[server] = { version };
    this.#save();
  }

  /** The owner accepts `version` for the tools named, or for the whole server. */
  accept(server: string, version: string, tools?: readonly string[]): void {
    const entry = this.#versions[server];
    if (!tools || !entry) this.#versions[server] = { version };
    else this.#versions[server] = { ...entry, tools: { ...entry.tools, ...Object.fromEntries(tools.map((t) => [t, version])) } };
    this.#save();
  }

  forget(server: string): void {
    if (!Object.hasOwn(this.#versions, server)) return;
    delete this.#versions[server];
    this.#save();
  }

  #save(): void {
    if (this.#file) writeConfigFile(this.#file, this.#versions as Record<string, unknown>);
  }
}

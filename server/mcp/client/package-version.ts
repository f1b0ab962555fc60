import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { AcceptanceStore } from '../../store/index.js';
import { isPlainObject } from '../../util/json.js';
import { SERVER_ROW } from './pins.js';

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

/**
 * The package a stdio command line runs, with its version as the view shows it: the pinned one, or, once it has run
 * with `env`, the version of an unpinned npx package that ran (`ran`, the one to remember). Null when it runs none.
 */
export function packageOf(command: string, args: readonly string[], env?: Record<string, string | undefined>): { view: PackageView; ran: string | null } | null {
  const pkg = runPackage(command, args);
  if (!pkg) return null;
  const ran = env && pkg.runner === 'npx' && !pkg.pinned ? (npxRanVersion(pkg, env) ?? null) : null;
  return { view: { ...pkg, version: pkg.pinned ?? ran }, ran };
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

/** What the owner accepted of a server's package, as the server's own row of the acceptance store keeps it. */
interface AcceptedVersions {
  /** The version the owner accepted the server's tools with (the first one that ran, until they accept another). */
  version: string;
  /** Tools accepted by name at another version since. */
  tools?: Record<string, string>;
}

/** Where older Pincers kept these versions; read once into the acceptance store, then kept under another name. */
export const OLD_VERSIONS_FILE = 'mcp-packages.json';

/**
 * The package versions the owner accepted each server's tools with, in the one acceptance store: the server's own
 * row (tool '') holds the version (as its hash too) and the tools accepted by name at another version since. The
 * first version seen is taken as accepted: the tools are new then and reviewed as such. Removing the server forgets
 * it with its tools' acceptances (McpPins.forget). On first use it takes over what an older Pincer kept in
 * `mcp-packages.json`.
 */
export class PackageVersions {
  constructor(
    private readonly acceptances: AcceptanceStore,
    dataDir?: string,
    log: (line: string) => void = () => undefined,
  ) {
    if (dataDir) importOldVersions(acceptances, dataDir, log);
  }

  /** The version `tool` of `server` was accepted with; undefined before any version of the server was seen. */
  accepted(server: string, tool: string): string | undefined {
    const entry = this.#read(server);
    if (!entry) return undefined;
    const byName = entry.tools && Object.hasOwn(entry.tools, tool) ? entry.tools[tool] : undefined;
    return typeof byName === 'string' ? byName : entry.version;
  }

  /** A version ran: the first one for a server is its accepted one. */
  seen(server: string, version: string): void {
    if (this.#read(server)) return;
    this.#write(server, { version });
  }

  /** The owner accepts `version` for the tools named, or for the whole server. */
  accept(server: string, version: string, tools?: readonly string[]): void {
    const entry = this.#read(server);
    if (!tools || !entry) this.#write(server, { version });
    else this.#write(server, { ...entry, tools: { ...entry.tools, ...Object.fromEntries(tools.map((t) => [t, version])) } });
  }

  #read(server: string): AcceptedVersions | undefined {
    const accepted = this.acceptances.get('mcp', server, SERVER_ROW)?.accepted;
    return isPlainObject(accepted) && typeof accepted.version === 'string' ? (accepted as unknown as AcceptedVersions) : undefined;
  }

  #write(server: string, entry: AcceptedVersions): void {
    this.acceptances.put({ kind: 'mcp', source: server, tool: SERVER_ROW, hash: entry.version, accepted: entry, disabled: false }, 'owner');
  }
}

/**
 * Moves the versions an older Pincer kept in mcp-packages.json into the store, losing none: each server's entry
 * becomes its row (one the store already has is newer and stays), then the file is renamed so it is not read again
 * but is kept. An unreadable file is left where it is and accepts nothing: the next version each server runs is taken
 * as accepted, as an older Pincer did with such a file.
 */
function importOldVersions(acceptances: AcceptanceStore, dataDir: string, log: (line: string) => void): void {
  const file = join(dataDir, OLD_VERSIONS_FILE);
  if (!existsSync(file)) return;
  let versions: Record<string, unknown>;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!isPlainObject(parsed)) throw new Error('not a JSON object');
    versions = parsed;
  } catch (error) {
    log(`pincer: ${file} could not be read (${(error as Error).message}); the package versions it accepted are taken again from what runs next`);
    return;
  }
  const now = Date.now();
  const entries = Object.entries(versions).flatMap(([server, entry]) => {
    // An entry without a version counted as none (the next version seen was accepted): it is left out the same way.
    if (!isPlainObject(entry) || typeof entry.version !== 'string') return [];
    const tools = isPlainObject(entry.tools) ? Object.entries(entry.tools).filter(([, v]) => typeof v === 'string') : [];
    const accepted: AcceptedVersions = { version: entry.version, ...(tools.length > 0 && { tools: Object.fromEntries(tools) as Record<string, string> }) };
    return [{ kind: 'mcp' as const, source: server, tool: SERVER_ROW, hash: accepted.version, accepted, accepted_at: now, accepted_by: 'owner' }];
  });
  acceptances.importOld(entries);
  try {
    renameSync(file, `${file}.imported`);
  } catch (error) {
    // Another process of this data folder (a command next to the gateway) read it in at the same moment.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

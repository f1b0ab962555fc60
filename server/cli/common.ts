import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Credentials, SESSION_COOKIE } from '../auth/credentials.js';
import { ensurePrivateDir } from '../auth/secrets.js';
import { ConfigError, loadConfig, type ConfigFlags, type PincerConfig } from '../config/config.js';
import { createGateway } from '../index.js';
import { DataDirInUseError, lockHolder, openStore, type LockOptions, type Store } from '../store/index.js';
import { quotedChoice } from '../errors.js';
import { closestNames } from '../util/closest.js';

/** Helpers every CLI command shares: argument parsing, reaching the gateway, and plain-text output. */

export type Out = { log: (line: string) => void; error: (line: string) => void };

/** A mistake in how the command was typed: exit code 2. */
export class UsageError extends Error {}

/** Every command finds the gateway (and its data) the same way `serve` was told to. */
const COMMON = { 'data-dir': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } } as const;

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
export type Parsed = { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };

export function parse(args: string[], options: OptionSpec): Parsed {
  const known = { ...COMMON, ...options };
  try {
    return parseArgs({ args, options: known, allowPositionals: true, strict: true }) as never;
  } catch (error) {
    const unknown = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec((error as Error).message)?.[1] : undefined;
    if (unknown === undefined) throw new UsageError((error as Error).message);
    throw new UsageError(unknownOption(unknown, Object.keys(known)));
  }
}

/** An option given a value it does not take: the values it does, and the closest to what was written. */
export function notAChoice(option: string, written: string, choices: readonly string[]): UsageError {
  const closest = closestNames(written, choices, 1);
  const hint = closest.length > 0 ? `; did you mean ${quotedChoice(closest)}?` : '';
  return new UsageError(`--${option} must be ${quotedChoice(choices)}, got "${written}"${hint}`);
}

/** `unknown option "--jsn"; did you mean "--json"?` — or the options there are, and how to pass a value that starts with "-". */
function unknownOption(written: string, names: readonly string[]): string {
  const closest = closestNames(written.replace(/^-+/, '').split('=')[0]!, names, 1).map((name) => `--${name}`);
  if (closest.length > 0) return `unknown option "${written}"; did you mean ${quotedChoice(closest)}?`;
  const listed = names.map((name) => `--${name}`).join(', ');
  return `unknown option "${written}" (this command takes ${listed}). A value that starts with "-" goes after "--", as in: -- "${written}"`;
}

export function configFrom(values: Record<string, unknown>): PincerConfig {
  const flags: ConfigFlags = {};
  if (typeof values['data-dir'] === 'string') flags.dataDir = values['data-dir'];
  if (typeof values.host === 'string') flags.host = values.host;
  if (typeof values.port === 'string') flags.port = values.port;
  if (values['no-auth'] === true) flags.noAuth = true;
  return loadConfig({ flags });
}

/**
 * The better-sqlite3 addon to open the database with, from PINCER_SQLITE_BINDING: the installed desktop app's
 * `pincer` command runs on the app's own runtime (Electron as Node), which needs the Electron build of the addon,
 * not the Node build in node_modules. Unset: the package's own build.
 */
export function sqliteBinding(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const binding = env.PINCER_SQLITE_BINDING;
  if (!binding) return undefined;
  if (!isAbsolute(binding) || !existsSync(binding)) {
    throw new ConfigError(`PINCER_SQLITE_BINDING must be the absolute path of a better-sqlite3 addon (.node) that exists, got "${binding}"`);
  }
  return binding;
}

/** The data directory's store and credentials for one command, created on first use and closed after. */
export function withCredentials<T>(config: PincerConfig, use: (data: { store: Store; credentials: Credentials }) => T): T {
  ensurePrivateDir(config.dataDir);
  const binding = sqliteBinding();
  const store = openStore(join(config.dataDir, 'pincer.db'), binding ? { nativeBinding: binding } : {});
  try {
    return use({ store, credentials: new Credentials({ dataDir: config.dataDir, store, token: config.token }) });
  } finally {
    store.close();
  }
}

export type Answer = { status: number; json: unknown };

/** What a gateway started for one command must have loaded. */
export interface GatewayNeeds {
  plugins?: boolean;
}

/**
 * Runs `exchange` against the gateway serving the data directory (found through its lock, whatever port it was
 * started on), or, when none does, against a gateway started in-process for it, so every command works either way
 * and always goes through the same pipeline. The command's gateway holds the folder's lock while it runs (a
 * `pincer serve` started meanwhile is told the folder is in use) but recovers nothing: it is not the folder's owner.
 * `exchange` gets the base URL (`http://127.0.0.1:7800`), which is also the gateway's own origin.
 */
export async function viaGateway<T>(config: PincerConfig, exchange: (base: string) => Promise<T>, options: GatewayNeeds = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const running = await runningGateway(config);
    if (running) return exchange(running);
    let gateway;
    try {
      // Plugins start their own processes: a gateway started for one command loads them only when it is about them.
      gateway = createGateway({
        config: { ...config, host: '127.0.0.1', port: 0 },
        sqliteBinding: sqliteBinding(),
        loadPlugins: options.plugins === true,
        recover: false,
      });
    } catch (error) {
      // Another command or gateway took the folder a moment ago: use that one.
      if (error instanceof DataDirInUseError && attempt < 3) continue;
      throw error;
    }
    try {
      const { url } = await gateway.listen();
      if (options.plugins) await gateway.plugins.rescan();
      return await exchange(url);
    } finally {
      await gateway.close();
    }
  }
}

/** How long a command waits for a gateway that holds the folder but has not opened its port yet. */
const STARTING_WAIT_MS = 10_000;

/**
 * The address of the gateway serving the data directory, or undefined when none does. One that is still starting
 * is waited for; its address comes from the folder's lock file, which only the holder writes.
 */
export async function runningGateway(config: PincerConfig): Promise<string | undefined> {
  const deadline = Date.now() + STARTING_WAIT_MS;
  for (;;) {
    const held = lockHolder(config.dataDir, lockOptions());
    if (!held) return undefined;
    if (held.holder?.url) return held.holder.url;
    if (Date.now() >= deadline) throw new Error(`${new DataDirInUseError(config.dataDir, held.holder).message}, which has not opened its port yet; try again in a moment.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function lockOptions(): LockOptions {
  const binding = sqliteBinding();
  return binding ? { nativeBinding: binding } : {};
}

async function send(url: string, method: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = { error: { name: `HTTP_${response.status}`, message: text.slice(0, 200) || response.statusText } };
  }
  return { status: response.status, json };
}

/** One request as the default client (the data directory's client token). */
export async function request(config: PincerConfig, method: string, path: string, body?: unknown, needs?: GatewayNeeds): Promise<Answer> {
  const token = withCredentials(config, ({ credentials }) => credentials.defaultToken);
  return viaGateway(config, (base) => send(`${base}${path}`, method, { authorization: `Bearer ${token}` }, body), needs);
}

/**
 * One request as the owner: whoever can read the data directory can mint a one-time login code with its owner
 * secret, exactly like `pincer login-url`; the code buys a session cookie, which signs this one request (with the
 * gateway's own Origin, as every owner change needs) and is then logged out. Neither is ever printed.
 */
export async function ownerRequest(config: PincerConfig, method: string, path: string, body?: unknown, needs?: GatewayNeeds): Promise<Answer> {
  return asOwner(config, (base, headers) => send(`${base}${path}`, method, headers, body), needs);
}

/** Runs `exchange` signed in as the owner (as ownerRequest does), for requests that stream their body or answer. */
export async function asOwner<T>(
  config: PincerConfig,
  exchange: (base: string, headers: Record<string, string>) => Promise<T>,
  needs?: GatewayNeeds,
): Promise<T> {
  return viaGateway(config, async (base) => {
    const code = withCredentials(config, ({ credentials }) => credentials.createLoginCode());
    const login = await fetch(`${base}/auth?code=${encodeURIComponent(code)}`, { redirect: 'manual' });
    await login.body?.cancel();
    const session = sessionCookie(login.headers.getSetCookie());
    if (login.status !== 303 || !session) {
      throw new Error(`the gateway at ${base} did not accept an owner login from this data directory (HTTP ${login.status}); is it running with --data-dir ${config.dataDir}?`);
    }
    const headers = { cookie: `${SESSION_COOKIE}=${session}`, origin: base };
    try {
      return await exchange(base, headers);
    } finally {
      await fetch(`${base}/auth/logout`, { method: 'POST', headers }).then(
        (r) => r.body?.cancel(),
        () => undefined,
      );
    }
  }, needs);
}

function sessionCookie(setCookies: string[]): string | undefined {
  for (const header of setCookies) {
    const [pair] = header.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (pair && eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** The start-up line that names the folders tools may touch, or says that none is shared yet and how to share one. */
export function rootsLine(config: Pick<PincerConfig, 'roots' | 'rootsNotice'>): string {
  if (config.roots.length > 0) return `Folders file tools may touch: ${config.roots.join(', ')}`;
  return (
    `No folder is shared yet${config.rootsNotice ? ` (${config.rootsNotice})` : ''}: file tools and run_shell refuse until ` +
    'you share one in the dashboard\'s Settings or with "pincer roots add DIR".'
  );
}

/** Prints a gateway refusal as `pincer: NAME: message`; exit code 1. */
export function failed(json: unknown, out: Out): number {
  const error = (json as { error?: { name: string; message: string } }).error;
  out.error(`pincer: ${error ? `${error.name}: ${error.message}` : JSON.stringify(json)}`);
  return 1;
}

export function firstSentence(text: string): string {
  const sentence = /^.*?[.!?](\s|$)/.exec(text)?.[0]?.trim() ?? text;
  return sentence.length > 80 ? `${sentence.slice(0, 77)}…` : sentence;
}

export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

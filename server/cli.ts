import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Credentials } from './auth/credentials.js';
import { ConfigError, loadConfig, urlHost, type ConfigFlags, type PincerConfig } from './config/config.js';
import { createGateway, type Gateway } from './index.js';
import { openStore, type Store } from './store/index.js';
import { ensurePrivateDir } from './auth/secrets.js';
import { VERSION } from './version.js';

const USAGE = `Pincer ${VERSION} — a local tool gateway for AI assistants

Usage:
  pincer serve [--host 127.0.0.1] [--port 7800] [--data-dir DIR] [--no-auth]
  pincer tools [--json]                   list tools
  pincer call <tool> ['{"arg": …}']      call a tool through the gateway
  pincer stats [--json]                   per-tool statistics
  pincer policy check <tool> ['{…}']     what the policy would decide, without running
  pincer token create <name>              issue a named client token (shown once)
  pincer token list                       list client tokens
  pincer token revoke <name>              revoke a client token
  pincer login-url                        print a one-time dashboard login link

Every command takes --data-dir DIR (default: $PINCER_HOME or ~/.pincer), --host and --port.
`;

type Out = { log: (line: string) => void; error: (line: string) => void };
const stdio: Out = { log: (l) => process.stdout.write(`${l}\n`), error: (l) => process.stderr.write(`${l}\n`) };

/** Runs the CLI; resolves with the exit code (serve resolves only when the gateway has stopped). */
export async function main(argv: string[], out: Out = stdio): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest, out);
      case 'tools':
        return await tools(rest, out);
      case 'call':
        return await call(rest, out);
      case 'stats':
        return await stats(rest, out);
      case 'token':
        return token(rest, out);
      case 'policy':
        return await policy(rest, out);
      case 'login-url':
        return await loginUrl(rest, out);
      case '--version':
      case '-v':
        out.log(VERSION);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out.log(USAGE);
        return 0;
      default:
        out.error(`pincer: unknown command "${command}". Run "pincer help" for the list.`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      out.error(`pincer: ${error.message}`);
      return 2;
    }
    out.error(`pincer: ${(error as Error).message}`);
    return 1;
  }
}

class UsageError extends Error {}

/** Every command finds the gateway (and its data) the same way `serve` was told to. */
const COMMON = { 'data-dir': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } } as const;

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

function parse(args: string[], options: OptionSpec): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true }) as never;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function configFrom(values: Record<string, unknown>): PincerConfig {
  const flags: ConfigFlags = {};
  if (typeof values['data-dir'] === 'string') flags.dataDir = values['data-dir'];
  if (typeof values.host === 'string') flags.host = values.host;
  if (typeof values.port === 'string') flags.port = values.port;
  if (values['no-auth'] === true) flags.noAuth = true;
  return loadConfig({ flags });
}

async function serve(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { 'no-auth': { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got "${positionals.join(' ')}"`);
  const config = configFrom(values);
  const gateway = createGateway({ config });
  let address;
  try {
    address = await gateway.listen();
  } catch (error) {
    await gateway.close(0);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${config.port} on ${config.host} is in use; is Pincer already running? Choose another with --port.`);
    throw error;
  }
  // Handlers go in before the ready lines: a supervisor may signal as soon as it reads them.
  const stopped = waitForSignal(gateway, out);
  out.log(`Pincer ${VERSION} listening on ${address.url}`);
  out.log(`Data directory: ${config.dataDir}`);
  out.log(`Client token: ${config.token ? 'from PINCER_TOKEN' : join(config.dataDir, 'token')}${config.clientAuth ? '' : ' (not required: --no-auth)'}`);
  out.log(`Dashboard login link (one-time, 15 minutes): ${gateway.loginUrl()}`);
  return stopped;
}

function waitForSignal(gateway: Gateway, out: Out): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        out.error(`pincer: ${signal} again, stopping now`);
        process.exit(130);
      }
      stopping = true;
      const running = gateway.executor.inFlightCount;
      out.log(`Stopping (${signal})${running ? `: letting ${running} running call${running > 1 ? 's' : ''} finish` : ''}…`);
      gateway.close(5000).then(
        () => resolve(0),
        (error: unknown) => {
          out.error(`pincer: error while stopping: ${(error as Error).message}`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/**
 * Sends one request to the running gateway, or, when none is listening, to a gateway started in-process for the
 * request, so `pincer call` works either way and always goes through the same pipeline.
 */
async function request(config: PincerConfig, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const send = async (base: string, token: string) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  };
  const host = urlHost(config.host);
  const token = withCredentials(config, ({ credentials }) => credentials.defaultToken);
  try {
    return await send(`http://${host}:${config.port}`, token);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED') throw error;
  }
  const gateway = createGateway({ config: { ...config, host: '127.0.0.1', port: 0 } });
  try {
    const { url } = await gateway.listen();
    return await send(url, token);
  } finally {
    await gateway.close();
  }
}

async function tools(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  const { status, json } = await request(configFrom(values), 'GET', '/tools');
  if (status !== 200) return failed(json, out);
  const list = (json as { tools: { name: string; category: string; risk: string; enabled: boolean; description: string }[] }).tools;
  if (values.json) {
    out.log(JSON.stringify(json, null, 2));
    return 0;
  }
  out.log(
    table(
      ['TOOL', 'CATEGORY', 'RISK', 'ENABLED', 'DESCRIPTION'],
      list.map((t) => [t.name, t.category, t.risk, t.enabled ? 'yes' : 'no', firstSentence(t.description)]),
    ),
  );
  return 0;
}

async function call(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, {});
  const named = namedCallArgs(positionals, 'pincer call <tool> [\'{"arg": …}\']');
  const { json } = await request(configFrom(values), 'POST', '/execute', named);
  out.log(JSON.stringify(json, null, 2));
  return (json as { success?: boolean }).success ? 0 : 1;
}

async function policy(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  const [action, ...rest] = positionals;
  if (action !== 'check') throw new UsageError(`usage: pincer policy check <tool> ['{"arg": …}']`);
  const named = namedCallArgs(rest, 'pincer policy check <tool> [\'{"arg": …}\']');
  const { status, json } = await request(configFrom(values), 'POST', '/policy/check', named);
  if (status !== 200) return failed(json, out);
  const verdict = json as { decision: string; rule: string; reason: string };
  out.log(values.json ? JSON.stringify(verdict, null, 2) : `${verdict.decision}  (${verdict.rule})  ${verdict.reason}`);
  return 0;
}

function namedCallArgs(positionals: string[], usage: string): { name: string; arguments: unknown } {
  const [name, rawArgs, ...extra] = positionals;
  if (!name || extra.length > 0) throw new UsageError(`usage: ${usage}`);
  if (rawArgs === undefined) return { name, arguments: {} };
  try {
    return { name, arguments: JSON.parse(rawArgs) as unknown };
  } catch (error) {
    throw new UsageError(`the arguments must be JSON: ${(error as Error).message}`);
  }
}

async function stats(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, { json: { type: 'boolean' } });
  const { status, json } = await request(configFrom(values), 'GET', '/stats');
  if (status !== 200) return failed(json, out);
  if (values.json) {
    out.log(JSON.stringify(json, null, 2));
    return 0;
  }
  type Row = { tool: string; calls: number; success_rate: number | null; latency_ms: { avg: number | null; p95: number | null }; last_call: { at: string } | null };
  const rows = (json as { tools: Row[] }).tools;
  const ms = (v: number | null) => (v === null ? '-' : `${v.toFixed(2)} ms`);
  out.log(
    table(
      ['TOOL', 'CALLS', 'SUCCESS', 'AVG', 'P95', 'LAST CALL'],
      rows.map((r) => [
        r.tool,
        String(r.calls),
        r.success_rate === null ? '-' : `${(r.success_rate * 100).toFixed(1)}%`,
        ms(r.latency_ms.avg),
        ms(r.latency_ms.p95),
        r.last_call?.at ?? '-',
      ]),
    ),
  );
  return 0;
}

/** Token commands act on the data directory directly: whoever can read it is the owner. */
function token(args: string[], out: Out): number {
  const { values, positionals } = parse(args, {});
  const [action, name, ...extra] = positionals;
  const config = configFrom(values);
  return withCredentials(config, ({ store, credentials }) => {
    if (action === 'create' && name && extra.length === 0) {
      const token = credentials.createClient(name);
      out.log(token);
      out.error(`Client "${name}" created. This token is shown only now; give it to the assistant as "Authorization: Bearer <token>".`);
      return 0;
    }
    if (action === 'revoke' && name && extra.length === 0) {
      if (!store.clients.revoke(name)) {
        out.error(`pincer: no active client named "${name}".`);
        return 1;
      }
      out.log(`Client "${name}" revoked; its token stops working at once.`);
      return 0;
    }
    if (action === 'list' && !name) {
      const rows = store.clients.list().map((c) => [c.name, `…${c.token_hint}`, c.created_at, c.last_used_at ?? '-', c.revoked_at ? 'revoked' : 'active']);
      out.log(table(['CLIENT', 'TOKEN', 'CREATED', 'LAST USED', 'STATUS'], [['default', config.token ? 'PINCER_TOKEN' : 'token file', '-', '-', 'active'], ...rows]));
      return 0;
    }
    throw new UsageError('usage: pincer token create <name> | token list | token revoke <name>');
  });
}

async function loginUrl(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, {});
  const config = configFrom(values);
  const link = withCredentials(config, ({ credentials }) => credentials.createLoginCode());
  out.log(`http://${urlHost(config.host)}:${config.port}/auth?code=${link}`);
  return 0;
}

/** The data directory's store and credentials for one command, created on first use and closed after. */
function withCredentials<T>(config: PincerConfig, use: (data: { store: Store; credentials: Credentials }) => T): T {
  ensurePrivateDir(config.dataDir);
  const store = openStore(join(config.dataDir, 'pincer.db'));
  try {
    return use({ store, credentials: new Credentials({ dataDir: config.dataDir, store, token: config.token }) });
  } finally {
    store.close();
  }
}

function failed(json: unknown, out: Out): number {
  const error = (json as { error?: { name: string; message: string } }).error;
  out.error(`pincer: ${error ? `${error.name}: ${error.message}` : JSON.stringify(json)}`);
  return 1;
}

function firstSentence(text: string): string {
  const sentence = /^.*?[.!?](\s|$)/.exec(text)?.[0]?.trim() ?? text;
  return sentence.length > 80 ? `${sentence.slice(0, 77)}…` : sentence;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

import { createGateway, DataDirInUseError } from '../index.js';
import { VERSION } from '../version.js';
import type { PincerConfig } from '../config/config.js';
import { mcpConfig } from './mcp-config.js';
import { configFrom, ownerRequest, parse, rootsLine, runningGateway, sqliteBinding, UsageError, withCredentials, type Out } from './common.js';

/**
 * `pincer mcp`: MCP over stdio for clients that start a command (Claude Desktop, Cursor, VS Code). It forwards to
 * the gateway serving the data directory (found through its lock) with the folder's client token; when none runs,
 * it starts the whole gateway on the configured address (dashboard included, so the owner can answer its
 * approvals) for as long as the client stays connected; that one owns the folder as `pincer serve` would. Standard
 * output carries JSON-RPC only; everything else goes to standard error.
 */
export async function mcp(args: string[], out: Out): Promise<number> {
  if (args[0] === 'config') return mcpConfig(args.slice(1), out);
  const { values, positionals } = parse(args, {});
  if (positionals.length > 0) throw new UsageError('usage: pincer mcp [--data-dir DIR] [--host H] [--port P] | pincer mcp config [--client claude|cursor|vscode]');
  // Anything that would print to standard output would corrupt the protocol stream.
  console.log = console.info = console.debug = console.error;
  const config = configFrom(values);
  const token = withCredentials(config, ({ credentials }) => credentials.defaultToken);

  const running = await runningGateway(config);
  if (running) {
    await announceRoots(config, running, out);
    return forward(running, token, out);
  }

  let gateway;
  try {
    gateway = createGateway({ config, log: out.error, sqliteBinding: sqliteBinding() });
  } catch (error) {
    // Another `pincer mcp` (or `pincer serve`) took the folder a moment ago: use that one.
    if (!(error instanceof DataDirInUseError)) throw error;
    const other = await runningGateway(config);
    if (!other) throw error;
    return forward(other, token, out);
  }
  let address;
  try {
    address = await gateway.listen();
  } catch (error) {
    await gateway.close(0);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${config.port} on ${config.host} is taken by another program (or a gateway of another data folder); choose Pincer's port with --port.`);
    }
    throw error;
  }
  process.once('exit', () => gateway.processes.killAll());
  out.error(`Pincer ${VERSION} listening on ${address.url} (started by pincer mcp; it stops when this MCP client disconnects)`);
  out.error(rootsLine(gateway.config));
  out.error(`Dashboard login link (one-time, 15 minutes): ${gateway.loginUrl()}`);
  try {
    return await forward(address.url, token, out);
  } finally {
    await gateway.close(5000);
  }
}

/** Names the running gateway's folders on standard error, as a gateway started here would at start. */
async function announceRoots(config: PincerConfig, base: string, out: Out): Promise<void> {
  try {
    const { status, json } = await ownerRequest(config, 'GET', '/settings');
    const roots = (json as { roots?: unknown }).roots;
    if (status === 200 && Array.isArray(roots)) {
      out.error(`pincer mcp: forwarding to the gateway at ${base}. ${rootsLine({ roots: roots.map(String) })}`);
      return;
    }
  } catch {
    // Told below.
  }
  out.error(`pincer mcp: forwarding to the gateway at ${base} (it did not say which folders it shares).`);
}

async function forward(url: string, token: string, out: Out): Promise<number> {
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const { bridgeStdio } = await import('../mcp/stdio.js');
  try {
    await bridgeStdio({ url, token, stdin: process.stdin, stdout: process.stdout, log: out.error, signal: stopping.signal });
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
  return 0;
}

import { join } from 'node:path';
import { ConfigError, urlHost } from './config/config.js';
import { createGateway, DataDirInUseError, type Gateway } from './index.js';
import { configFrom, failed, firstSentence, ownerRequest, parse, request, rootsLine, runningGateway, sqliteBinding, table, UsageError, withCredentials, type Out } from './cli/common.js';
import { approvals } from './cli/approvals.js';
import { clients, rules, setPaused, toggleTool } from './cli/owner-commands.js';
import { calls } from './cli/history.js';
import { memory } from './cli/memory.js';
import { plugin } from './cli/plugins.js';
import { mcp } from './cli/mcp.js';
import { mcpServers } from './cli/mcp-servers.js';
import { sources } from './cli/sources.js';
import { chat } from './cli/chat.js';
import { roots } from './cli/roots.js';
import { doctor } from './cli/doctor.js';
import { unknownCommand } from './cli/command-names.js';
import { VERSION } from './version.js';

const USAGE = `Pincer ${VERSION} — a local tool gateway for AI assistants

Usage:
  pincer serve [--host 127.0.0.1] [--port 7800] [--data-dir DIR] [--no-auth]
  pincer tools [--json]                   list tools
  pincer call <tool> ['{"arg": …}']      call a tool through the gateway
  pincer stats [--json]                   per-tool statistics
  pincer calls export [--since T] [--tool T] [--client C] [--status S] [--out FILE]
                                          the call history as JSONL, oldest first
  pincer policy check <tool> ['{…}']     what the policy would decide, without running
  pincer memory add "<text>" [--tags a,b] [--category C] | memory search "<query>" [--method M] [--limit N]
  pincer memory rm <id> | memory export [--out FILE] | memory import <FILE|->
                                          the memory store (as the owner); export/import stream JSONL
  pincer plugin new <name>                write a working plugin skeleton into the plugins folder
  pincer plugin [list] [--json]           plugins, their status and tools
  pincer plugin show <name> [--json]      what accepting a plugin lets run: manifest, permissions, tools, files
  pincer plugin accept|disable|enable|rm <name>
                                          accept a new or changed plugin, turn one off or on, remove one
  pincer mcp                              MCP over stdio, forwarded to the running gateway (or starting it)
  pincer mcp config [--client claude|cursor|vscode]
                                          the JSON to paste into an MCP client's configuration
  pincer mcp-servers [list] | add <name> -- <command> [args…] | add <name> --url U | rm <name>
  pincer mcp-servers accept <name> [--tool T]… [--risk R] | disable <name> [--tool T]… | enable <name>
  pincer mcp-servers catalog | add [<name>] --from-catalog <entry>
                                          well-known servers, versions pinned
                                          imported MCP servers: their status and tools; accept new or changed tools
  pincer sources [--json]                 every tool source, plugins and MCP servers: status, tools waiting
  pincer chat ["<message>"] [--model M] [--conversation ID] [--json]
                                          talk to the configured model with Pincer's tools (no message: interactive)
  pincer token create <name>              issue a named client token (shown once)
  pincer token list                       list client tokens
  pincer token revoke <name>              revoke a client token
  pincer login-url                        print a one-time dashboard login link
  pincer doctor                           check the sandbox, Electron, the model, the port and the folders

Owner commands (they act on the running gateway as its owner, or on one started for the command):
  pincer approvals [list] [--json]        pending approvals
  pincer approvals allow <id> [--always [--scope exact|tool|prefix|folder|host] [--pattern P]]
  pincer approvals deny <id> [--message "…"]
  pincer approvals accept <id> [--set field=value …]   answer an imported server's question
  pincer approvals decline <id>
  pincer rules [list] [--json]            standing grants and denials
  pincer rules add <allow|ask|deny> <tool|*> [--scope tool|exact|prefix|folder|host] [--pattern P]
                   [--args JSON (exact)] [--note N] [--expires ISO]
  pincer rules rm <id>                    remove a rule
  pincer tools enable|disable <name>      switch a tool on or off everywhere
  pincer pause | pincer resume            stop every tool / let them run again
  pincer clients [list] [--json]          clients, their history and memory scopes and tool sets
  pincer clients tools <name> <tool,tool,…|all>
                                          the tools a client may see and call
  pincer clients budget <name> <N|none> [--pin tool,tool]
                                          how many tools a client's lists carry (search_tools finds the rest)
  pincer clients memories <name> own|all  whether a client sees only the memories it wrote, or every one
  pincer clients history <name> own|all   whether a client reads only its own calls in the history, or every one
  pincer roots [list] [--json] | roots add <DIR> | roots remove <DIR>
                                          the folders file tools and run_shell may touch (none until you share one)

Every command takes --data-dir DIR (default: $PINCER_HOME or ~/.pincer), --host and --port.
`;

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
      case 'calls':
        return calls(rest, out);
      case 'memory':
        return await memory(rest, out);
      case 'plugin':
      case 'plugins':
        return await plugin(rest, out);
      case 'mcp':
        return await mcp(rest, out);
      case 'mcp-servers':
        return await mcpServers(rest, out);
      case 'sources':
        return await sources(rest, out);
      case 'chat':
        return await chat(rest, out === stdio ? { ...stdio, write: (text) => void process.stdout.write(text) } : out);
      case 'token':
        return token(rest, out);
      case 'policy':
        return await policy(rest, out);
      case 'login-url':
        return await loginUrl(rest, out);
      case 'doctor':
        return await doctor(rest, out);
      case 'approvals':
        return await approvals(rest, out);
      case 'rules':
        return await rules(rest, out);
      case 'clients':
        return await clients(rest, out);
      case 'roots':
        return await roots(rest, out);
      case 'pause':
      case 'resume':
        return await setPaused(command === 'pause', rest, out);
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
        out.error(`pincer: ${unknownCommand(argv) ?? `unknown command "${command}". Run "pincer help" for the list.`}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      // A mistyped subcommand fails its handler's checks: say which one was meant before the usage.
      const mistyped = error instanceof UsageError ? unknownCommand(argv) : undefined;
      if (mistyped) out.error(`pincer: ${mistyped}`);
      out.error(`pincer: ${error.message}`);
      return 2;
    }
    out.error(`pincer: ${(error as Error).message}`);
    return 1;
  }
}

async function serve(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { 'no-auth': { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got "${positionals.join(' ')}"`);
  const config = configFrom(values);
  let gateway: Gateway;
  try {
    gateway = createGateway({ config, log: out.error, sqliteBinding: sqliteBinding() });
  } catch (error) {
    // Nothing was touched: the running gateway's calls, approvals and processes are as they were.
    if (error instanceof DataDirInUseError) throw new Error(`${error.message}; stop it first or use --data-dir`);
    throw error;
  }
  let address;
  try {
    address = await gateway.listen();
  } catch (error) {
    await gateway.close(0);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new Error(`port ${config.port} on ${config.host} is in use by another program (or a gateway of another data folder); choose another with --port.`);
    }
    throw error;
  }
  // Handlers go in before the ready lines: a supervisor may signal as soon as it reads them.
  const stopped = waitForSignal(gateway, out);
  // However this process ends (an uncaught error included), the tool processes end with it; after a clean stop
  // there is nothing left to kill.
  process.once('exit', () => gateway.processes.killAll());
  out.log(`Pincer ${VERSION} listening on ${address.url}`);
  out.log(`Data directory: ${config.dataDir}`);
  out.log(rootsLine(gateway.config));
  out.log(`Client token: ${config.token ? 'from PINCER_TOKEN' : join(config.dataDir, 'token')}${config.clientAuth ? '' : ' (not required: --no-auth)'}`);
  out.log(`Dashboard login link (one-time, 15 minutes): ${gateway.loginUrl()}`);
  return stopped;
}

function waitForSignal(gateway: Gateway, out: Out): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // process.exit ends this process only: every tool process (its own group, so the signal did not reach
        // it) and scratch folder would be left behind. Kill and remove them first, synchronously.
        // The runner also holds the plugins' processes: the message counts the calls whose processes die.
        const calls = gateway.executor.inFlightCount;
        const killed = gateway.processes.killAll();
        out.error(`pincer: ${signal} again, stopping now${killed && calls ? ` (killed the processes of ${calls} running tool call${calls > 1 ? 's' : ''})` : ''}`);
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
    // Not once(): with the handler gone, a second signal would end the process by its default action, leaving
    // every tool process and scratch folder behind.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function tools(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  const [action, ...rest] = positionals;
  if ((action === 'enable' || action === 'disable') && !values.json) return toggleTool(action, rest, values, out);
  if (action !== undefined && action !== 'list') throw new UsageError('usage: pincer tools [list] [--json] | tools enable|disable <name>');
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
  // As the owner, who runs this command beside the gateway: the whole verdict, whatever the arguments hold.
  const { status, json } = await ownerRequest(configFrom(values), 'POST', '/policy/check', named);
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
  type Row = { tool: string; calls: number; success_rate: number | null; latency_ms: { avg: number | null; p95: number | null; p99: number | null }; last_call: { at: string } | null };
  const rows = (json as { tools: Row[] }).tools;
  const ms = (v: number | null) => (v === null ? '-' : `${v.toFixed(2)} ms`);
  out.log(
    table(
      ['TOOL', 'CALLS', 'SUCCESS', 'AVG', 'P95', 'P99', 'LAST CALL'],
      rows.map((r) => [
        r.tool,
        String(r.calls),
        r.success_rate === null ? '-' : `${(r.success_rate * 100).toFixed(1)}%`,
        ms(r.latency_ms.avg),
        ms(r.latency_ms.p95),
        ms(r.latency_ms.p99),
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
      const issued = credentials.issueClient(name);
      out.log(issued.token);
      out.error(`Client "${name}" created. This token is shown only now; give it to the assistant as "Authorization: Bearer <token>".`);
      if (issued.archived_as !== undefined) {
        out.error(`The earlier "${name}" (revoked) keeps its calls and memories as "${issued.archived_as}"; this token does not read them.`);
      }
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

/** A link for the gateway serving the data directory (whatever port it was started on), else the configured address. */
async function loginUrl(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, {});
  const config = configFrom(values);
  const base = (await runningGateway(config)) ?? `http://${urlHost(config.host)}:${config.port}`;
  const link = withCredentials(config, ({ credentials }) => credentials.createLoginCode());
  out.log(`${base}/auth?code=${link}`);
  return 0;
}

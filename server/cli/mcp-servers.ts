import { parseArgs } from 'node:util';
import { asOwner, configFrom, failed, firstSentence, ownerRequest, table, UsageError, type Out } from './common.js';

const USAGE = `usage:
  pincer mcp-servers [list] [--json]
  pincer mcp-servers add <name> [--env K=V]… -- <command> [args…]     a stdio server
  pincer mcp-servers add <name> --url <http://…/mcp> [--token T]      a Streamable HTTP server
  pincer mcp-servers add [<name>] --from-catalog <entry>              a well-known server, version pinned
  pincer mcp-servers catalog [--json]                                 the well-known servers
  pincer mcp-servers rm <name>
  pincer mcp-servers accept <name> [--tool T]… [--risk safe|sensitive|dangerous]
  pincer mcp-servers disable <name> [--tool T]…     the whole server, or only the tools named
  pincer mcp-servers enable <name>`;

interface ToolRow {
  name: string;
  imported_as: string;
  status: string;
  risk: string;
  description: string;
  accepted: boolean;
  flags: { rule: string; reason: string; where: string }[];
  change: { field: string }[] | null;
  problem: string | null;
}
interface ServerRow {
  name: string;
  transport: string | null;
  target: string | null;
  status: string;
  last_error: string | null;
  stderr: string | null;
  restarts: number;
  package: { runner: string; name: string; pinned: string | null; version: string | null } | null;
  tools: ToolRow[];
  notice: string;
}

const OPTIONS = {
  'data-dir': { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  json: { type: 'boolean' },
  env: { type: 'string', multiple: true },
  url: { type: 'string' },
  token: { type: 'string' },
  tool: { type: 'string', multiple: true },
  risk: { type: 'string' },
  'from-catalog': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

/** One `pincer mcp-servers <action> [name] [rest…]` as typed, with its options and the gateway to reach. */
interface Invocation {
  name: string | undefined;
  rest: string[];
  values: Values;
  config: ReturnType<typeof configFrom>;
  out: Out;
}

const ACTIONS: Record<string, (command: Invocation) => Promise<number>> = {
  list: listServers,
  catalog: listCatalog,
  add: addServer,
  rm: removeServer,
  accept: (command) => actOnServer('accept', command),
  disable: (command) => actOnServer('disable', command),
  enable: enableServer,
};

/** `pincer mcp-servers …`: the imported MCP servers, as the owner (config.json `mcp_servers`). */
export async function mcpServers(args: string[], out: Out): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [action = 'list', name, ...rest] = positionals;
  const config = configFrom(values);
  // Own keys only: an action such as "toString" is a typo, not a method of the table.
  const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  if (!run) throw new UsageError(USAGE);
  return run({ name, rest, values, config, out });
}

async function listServers({ name, values, config, out }: Invocation): Promise<number> {
  if (name) throw new UsageError(USAGE);
  const { status, json } = await ownerRequest(config, 'GET', '/mcp-servers');
  if (status !== 200) return failed(json, out);
  if (values.json) {
    out.log(JSON.stringify(json, null, 2));
    return 0;
  }
  const servers = (json as { servers: ServerRow[] }).servers;
  if (servers.length === 0) {
    out.log('No MCP servers. Add one with "pincer mcp-servers add <name> -- <command> [args…]".');
    return 0;
  }
  for (const server of servers) printServer(server, out);
  out.log(servers[0]!.notice);
  return 0;
}

/** One server of the list: its status line, package, last error and standard error, then its tools. */
function printServer(server: ServerRow, out: Out): void {
  out.log(`${server.name}  ${server.status}${server.restarts ? ` (restarts: ${server.restarts})` : ''}  ${server.transport ?? ''} ${server.target ?? ''}`);
  if (server.package) out.log(`  package: ${packageLine(server.package)}`);
  if (server.last_error) out.log(`  last error: ${server.last_error}`);
  if (server.stderr) out.log(`  its standard error:\n${server.stderr.replace(/^/gm, '    ')}`);
  if (server.tools.length > 0) {
    out.log(
      table(
        ['  TOOL', 'IMPORTED AS', 'STATUS', 'RISK', 'DESCRIPTION'],
        server.tools.map((t) => [`  ${t.name}`, t.imported_as, t.status, t.risk, firstSentence(t.description)]),
      ),
    );
  }
  for (const t of server.tools) {
    for (const flag of t.flags) out.log(`  ! ${t.name}: ${flag.reason} (${flag.where})`);
    if (t.change) out.log(`  ~ ${t.name}: changed ${t.change.map((c) => c.field).join(', ')} since accepted`);
    if (t.problem) out.log(`  x ${t.name}: cannot be imported: ${t.problem}`);
  }
}

async function listCatalog({ name, values, config, out }: Invocation): Promise<number> {
  if (name) throw new UsageError(USAGE);
  const { status, json } = await ownerRequest(config, 'GET', '/mcp-servers/catalog');
  if (status !== 200) return failed(json, out);
  const catalog = (json as { catalog: CatalogRow[] }).catalog;
  if (values.json) {
    out.log(JSON.stringify(json, null, 2));
    return 0;
  }
  out.log(table(['NAME', 'PACKAGE', 'VERSION', 'DESCRIPTION'], catalog.map((c) => [c.name, `${c.runner} ${c.package}`, c.version, firstSentence(c.description)])));
  out.log('Add one with "pincer mcp-servers add --from-catalog NAME"; its tools wait for you to accept them.');
  return 0;
}

async function addServer({ name, rest, values, config, out }: Invocation): Promise<number> {
  const fromCatalog = values['from-catalog'];
  if (fromCatalog !== undefined) {
    if (rest.length > 0 || values.url || values.token || values.env) throw new UsageError(`--from-catalog takes the whole command line from the catalogue.\n${USAGE}`);
    return addFromCatalog(config, name ?? fromCatalog, fromCatalog, out);
  }
  if (!name) throw new UsageError(USAGE);
  const entry = values.url ? httpEntry(values.url, rest, values) : stdioEntry(rest, values);
  const { status, json } = await ownerRequest(config, 'PUT', `/mcp-servers/${encodeURIComponent(name)}`, entry);
  if (status !== 200) return failed(json, out);
  out.log(`Added the MCP server ${name} to config.json; its tools appear as ${name}__<tool> once it is running ("pincer mcp-servers" shows them).`);
  out.log((json as ServerRow).notice);
  return 0;
}

/** The config.json entry of a Streamable HTTP server: a URL and maybe a token, never a command line. */
function httpEntry(url: string, rest: string[], values: Values): Record<string, unknown> {
  if (rest.length > 0 || values.env) throw new UsageError(USAGE);
  return { url, ...(values.token && { token: values.token }) };
}

/** The config.json entry of a stdio server: the command line after `--`, and its environment. */
function stdioEntry(rest: string[], values: Values): Record<string, unknown> {
  const [command, ...commandArgs] = rest;
  if (!command || values.token) throw new UsageError(USAGE);
  const entry: Record<string, unknown> = { command };
  if (commandArgs.length > 0) entry.args = commandArgs;
  if (values.env) entry.env = envFrom(values.env);
  return entry;
}

/** `--env NAME=value` pairs; the value may itself hold "=". */
function envFrom(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env takes NAME=value, got "${pair}"`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

async function removeServer({ name, rest, config, out }: Invocation): Promise<number> {
  if (!name || rest.length > 0) throw new UsageError(USAGE);
  const { status, json } = await ownerRequest(config, 'DELETE', `/mcp-servers/${encodeURIComponent(name)}`);
  if (status !== 200) return failed(json, out);
  out.log(`Removed the MCP server ${name}: its tools are gone and it is out of config.json.`);
  return 0;
}

/** `accept` or `disable`: the whole server, or only the tools named with --tool. */
async function actOnServer(action: 'accept' | 'disable', { name, rest, values, config, out }: Invocation): Promise<number> {
  if (!name || rest.length > 0) throw new UsageError(USAGE);
  if (action === 'disable' && values.risk) throw new UsageError(`--risk goes with accept.\n${USAGE}`);
  const body = { ...(values.tool && { tools: values.tool }), ...(values.risk && { risk: values.risk }) };
  if (action === 'disable' && !values.tool) {
    const { status, json } = await ownerRequest(config, 'POST', `/mcp-servers/${encodeURIComponent(name)}/disable`, {});
    if (status !== 200) return failed(json, out);
    out.log(`Disabled the MCP server ${name}: it is stopped and its tools are gone until "pincer mcp-servers enable ${name}".`);
    return 0;
  }
  const answer = await asOwner(config, (base, headers) => actOnTools(base, headers, name, action, body), { plugins: true });
  if ('nothing' in answer) {
    out.error(`pincer: ${answer.nothing}`);
    return 1;
  }
  if (answer.status !== 200) return failed(answer.json, out);
  const server = answer.json as ServerRow;
  for (const t of server.tools) out.log(`${t.name}  ${t.status}  ${t.risk}`);
  return 0;
}

async function enableServer({ name, rest, values, config, out }: Invocation): Promise<number> {
  if (!name || rest.length > 0 || values.tool) throw new UsageError(USAGE);
  const { status, json } = await ownerRequest(config, 'POST', `/mcp-servers/${encodeURIComponent(name)}/enable`, {});
  if (status !== 200) return failed(json, out);
  out.log(`Enabled the MCP server ${name}: it is starting ("pincer mcp-servers" shows its status).`);
  return 0;
}

interface CatalogRow {
  name: string;
  runner: string;
  package: string;
  version: string;
  description: string;
  command: string;
  args: string[];
  note: string;
  problem: string | null;
}

/** Adds the catalogue's `entry` as the server `name`, with the command line the gateway filled in for its roots. */
async function addFromCatalog(config: ReturnType<typeof configFrom>, name: string, entry: string, out: Out): Promise<number> {
  type Answer = { problem: string } | { status: number; json: unknown; known?: CatalogRow };
  const answer = await asOwner(config, async (base, headers): Promise<Answer> => {
    const listed = await fetch(`${base}/mcp-servers/catalog`, { headers });
    const body = (await listed.json()) as { catalog?: CatalogRow[] };
    if (listed.status !== 200 || !body.catalog) return { status: listed.status, json: body as unknown };
    const known = body.catalog.find((c) => c.name === entry);
    if (!known) return { problem: `the catalogue has no server named "${entry}" (it has ${body.catalog.map((c) => c.name).join(', ')})` };
    if (known.problem) return { problem: known.problem };
    const put = await fetch(`${base}/mcp-servers/${encodeURIComponent(name)}`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ command: known.command, args: known.args }),
    });
    return { status: put.status, json: (await put.json()) as unknown, known };
  });
  if ('problem' in answer) {
    out.error(`pincer: ${answer.problem}`);
    return 1;
  }
  const { known } = answer;
  if (answer.status !== 200 || !known) return failed(answer.json, out);
  out.log(`Added the MCP server ${name} from the catalogue: ${[known.command, ...known.args].join(' ')}`);
  out.log(known.note);
  out.log(
    `Its tools appear as ${name}__<tool> once it is running, unaccepted and rated sensitive (every call asks you): ` +
      `"pincer mcp-servers" shows them, "pincer mcp-servers accept ${name} [--risk R]" accepts them.`,
  );
  out.log((answer.json as ServerRow).notice);
  return 0;
}

/**
 * Accepts or turns off tools of a server. A gateway started for this command starts the servers; their tools must be
 * read before anything is accepted or turned off.
 */
async function actOnTools(
  base: string,
  headers: Record<string, string>,
  name: string,
  action: 'accept' | 'disable',
  body: { tools?: string[] },
): Promise<{ status: number; json: unknown } | { nothing: string }> {
  let server: ServerRow | undefined;
  for (let i = 0; i < 300; i++) {
    const view = await fetch(`${base}/mcp-servers/${encodeURIComponent(name)}`, { headers });
    server = view.status === 200 ? ((await view.json()) as ServerRow) : undefined;
    if (!server || !['starting', 'restarting'].includes(server.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Accepting "everything waiting" when nothing waits is said, not passed off as done.
  if (server && action === 'accept' && !body.tools && !server.tools.some(waitsForOwner)) {
    const why = server.tools.length === 0 ? `it has no tools (it is ${server.status}${server.last_error ? `: ${server.last_error}` : ''})` : 'every tool is accepted, disabled or cannot be imported';
    return { nothing: `nothing to accept: no tool of the MCP server "${name}" waits for you (${why}). "pincer mcp-servers" lists them.` };
  }
  const response = await fetch(`${base}/mcp-servers/${encodeURIComponent(name)}/${action}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as unknown };
}

function packageLine(pkg: NonNullable<ServerRow['package']>): string {
  if (pkg.pinned) return `${pkg.name} ${pkg.pinned} (${pkg.runner}, pinned)`;
  const ran = pkg.version ? `version ${pkg.version} ran last` : 'the version that ran is not known';
  return `${pkg.name} (${pkg.runner}, no version pinned: it runs the newest at each start; ${ran})`;
}

/** What accepting "everything waiting" would accept: held-back tools, and new ones the owner never accepted. */
function waitsForOwner(tool: ToolRow): boolean {
  return tool.status === 'changed' || tool.status === 'flagged' || (tool.status === 'active' && !tool.accepted);
}

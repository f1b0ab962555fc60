import type { PincerConfig } from '../config/config.js';
import { configFrom, notAChoice, parse, UsageError, type Out } from './common.js';
import { isDefaultDataDir, pincerLaunch } from '../config/pincer-command.js';

const USAGE = 'pincer mcp config [--client claude|cursor|vscode] [--data-dir DIR] [--port P]';

/** Where each client reads its MCP servers from, and the key it keeps them under. */
const CLIENTS = {
  claude: { key: 'mcpServers', file: 'claude_desktop_config.json (Claude Desktop: Settings → Developer → Edit Config)' },
  cursor: { key: 'mcpServers', file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)' },
  vscode: { key: 'servers', file: '.vscode/mcp.json in the workspace (or "MCP: Open User Configuration")' },
} as const;
type Client = keyof typeof CLIENTS;

/**
 * `pincer mcp config`: the JSON to paste into an MCP client's configuration, alone on standard output (so it can be
 * piped or copied whole); where it goes is said on standard error. A data folder or port the client could not
 * find by itself (a flag or a variable of this shell) is written into the arguments.
 */
export function mcpConfig(args: string[], out: Out): number {
  const { values, positionals } = parse(args, { client: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError(`usage: ${USAGE}`);
  const client = values.client === undefined ? undefined : String(values.client);
  if (client !== undefined && !(client in CLIENTS)) throw notAChoice('client', client, Object.keys(CLIENTS));
  const config = configFrom(values);
  const launch = pincerLaunch();
  const server = { command: launch.command, args: [...launch.args, 'mcp', ...addressArgs(config)] };
  const chosen = CLIENTS[(client ?? 'claude') as Client];
  out.log(JSON.stringify({ [chosen.key]: { pincer: client === 'vscode' ? { type: 'stdio', ...server } : server } }, null, 2));
  if (client) out.error(`Paste this into ${chosen.file}, merging it with any servers already there, then restart the client.`);
  else out.error('This is the shape Claude Desktop and Cursor read; add --client claude|cursor|vscode to be told where it goes (VS Code keeps it under "servers").');
  return 0;
}

function addressArgs(config: PincerConfig): string[] {
  const extra: string[] = [];
  if (!isDefaultDataDir(config.dataDir)) extra.push('--data-dir', config.dataDir);
  const portFrom = config.sources.port?.kind;
  if (portFrom === 'flag' || portFrom === 'env') extra.push('--port', String(config.port));
  return extra;
}

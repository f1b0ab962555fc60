import { parseArgs } from 'node:util';
import type { SourceList } from '../contract/sources.js';
import { configFrom, failed, request, table, UsageError, type Out } from './common.js';

const USAGE = `usage:
  pincer sources [list] [--json]     every tool source (plugins, imported MCP servers): kind, status, tools waiting`;

/**
 * `pincer sources`: every tool source of every kind in one list, as GET /sources answers. Each kind's own command
 * (`pincer plugin …`, `pincer mcp-servers …`) shows its details and acts on it.
 */
export async function sources(args: string[], out: Out): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { 'data-dir': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1 || (positionals[0] ?? 'list') !== 'list') throw new UsageError(USAGE);
  const { status, json } = await request(configFrom(values), 'GET', '/sources', undefined, { plugins: true });
  if (status !== 200) return failed(json, out);
  if (values.json) {
    out.log(JSON.stringify(json, null, 2));
    return 0;
  }
  const list = (json as SourceList).sources;
  if (list.length === 0) {
    out.log('No tool sources: no plugins and no imported MCP servers.');
    return 0;
  }
  const rows = list.map((s) => {
    const waiting = s.tools.filter((t) => t.status === 'held').map((t) => `${t.name} (${t.held_because})`);
    const state = s.held_because ? `${s.status} (${s.held_because})` : s.status;
    return [s.kind, s.name, state, String(s.tools.filter((t) => t.status === 'active').length), waiting.join(', ') || '-', s.reason ?? ''];
  });
  out.log(table(['KIND', 'SOURCE', 'STATUS', 'ACTIVE', 'WAITING', 'WHY'], rows));
  return 0;
}

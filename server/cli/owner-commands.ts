import { resolve } from 'node:path';
import type { PincerConfig } from '../config/config.js';
import { configFrom, failed, notAChoice, ownerRequest, parse, shorten, table, UsageError, type Out, type Parsed } from './common.js';
import { only, printJson, SCOPES, str } from './owner-options.js';

/**
 * The owner's commands: the rules ledger, tool switches, pause, and client tool sets (approvals are in approvals.ts).
 * They act on the running gateway over HTTP as the owner (so its state changes at once), or on one started in-process.
 */

const EFFECTS = ['allow', 'ask', 'deny'] as const;

const RULES_USAGE =
  'pincer rules [list] [--json] | rules add <allow|ask|deny> <tool|*> [--scope tool|exact|prefix|folder|host] [--pattern P] [--args JSON] [--note N] [--expires ISO] | rules rm <id>';

export async function rules(args: string[], out: Out): Promise<number> {
  const parsed = parse(args, {
    json: { type: 'boolean' },
    scope: { type: 'string' },
    pattern: { type: 'string' },
    args: { type: 'string' },
    note: { type: 'string' },
    expires: { type: 'string' },
  });
  const { values, positionals } = parsed;
  const [action = 'list', ...rest] = positionals;
  const config = configFrom(values);
  if (action === 'list' && rest.length === 0) {
    only(parsed, ['json'], RULES_USAGE);
    const { status, json } = await ownerRequest(config, 'GET', '/rules');
    if (status !== 200) return failed(json, out);
    if (values.json) return printJson(json, out);
    type Row = { id: string; effect: string; tool: string; scope: string; pattern: string | null; uses: number; last_used_at: string | null; expires_at: string | null };
    const list = (json as { rules: Row[] }).rules;
    if (list.length === 0) {
      out.log('No rules.');
      return 0;
    }
    out.log(
      table(
        ['ID', 'EFFECT', 'TOOL', 'SCOPE', 'PATTERN', 'USES', 'LAST USED', 'EXPIRES'],
        list.map((r) => [r.id, r.effect, r.tool, r.scope, shorten(r.pattern ?? '-', 50), String(r.uses), r.last_used_at ?? '-', r.expires_at ?? '-']),
      ),
    );
    return 0;
  }
  if (action === 'add') {
    only(parsed, ['scope', 'pattern', 'args', 'note', 'expires'], RULES_USAGE);
    const [effect, tool, ...extra] = rest;
    if (!effect || !tool || extra.length > 0) throw new UsageError(`usage: ${RULES_USAGE}`);
    if (!(EFFECTS as readonly string[]).includes(effect)) throw new UsageError(`the effect is one of ${EFFECTS.join(', ')}, got "${effect}"`);
    const body = newRule(effect, tool, values);
    const { status, json } = await ownerRequest(config, 'POST', '/rules', body);
    if (status !== 201) return failed(json, out);
    const rule = json as { id: string; effect: string; tool: string; scope: string; pattern: string | null };
    out.log(`Added rule ${rule.id}: ${rule.effect} ${rule.tool} (${rule.scope}${rule.pattern && rule.scope !== 'exact' ? ` ${rule.pattern}` : ''}).`);
    return 0;
  }
  if (action === 'rm') {
    only(parsed, [], RULES_USAGE);
    const [id, ...extra] = rest;
    if (!id || extra.length > 0) throw new UsageError('usage: pincer rules rm <id>');
    const { status, json } = await ownerRequest(config, 'DELETE', `/rules/${encodeURIComponent(id)}`);
    if (status !== 200) return failed(json, out);
    out.log(`Removed rule ${id}.`);
    return 0;
  }
  throw new UsageError(`usage: ${RULES_USAGE}`);
}

/** The POST /rules body; mistakes a person makes typing it are caught here, the rest by the gateway. */
function newRule(effect: string, tool: string, values: Parsed['values']): Record<string, unknown> {
  const rawArgs = str(values.args);
  const scope = str(values.scope) ?? (rawArgs !== undefined ? 'exact' : 'tool');
  if (!(SCOPES as readonly string[]).includes(scope)) throw notAChoice('scope', scope, SCOPES);
  let pattern: unknown = str(values.pattern);
  if (scope === 'exact') {
    if (pattern !== undefined) throw new UsageError('an exact rule takes --args JSON (the arguments object), not --pattern');
    if (rawArgs === undefined) throw new UsageError('an exact rule needs --args JSON: the arguments object it matches');
    try {
      pattern = JSON.parse(rawArgs) as unknown;
    } catch (error) {
      throw new UsageError(`--args must be JSON: ${(error as Error).message}`);
    }
    if (!pattern || typeof pattern !== 'object' || Array.isArray(pattern)) throw new UsageError('--args must be a JSON object');
  } else {
    if (rawArgs !== undefined) throw new UsageError('--args goes with --scope exact');
    if (scope === 'tool' && pattern !== undefined) throw new UsageError('a tool-wide rule takes no --pattern');
    if (scope !== 'tool' && pattern === undefined) throw new UsageError(`a ${scope} rule needs --pattern`);
    // The CLI runs on the gateway's machine: a folder may be given relative to where the command runs.
    if (scope === 'folder') pattern = resolve(pattern as string);
  }
  const expires = str(values.expires);
  if (expires !== undefined && Number.isNaN(Date.parse(expires))) throw new UsageError(`--expires must be an ISO 8601 date-time, got "${expires}"`);
  const note = str(values.note);
  return {
    effect,
    tool,
    scope,
    ...(pattern !== undefined && { pattern }),
    ...(note !== undefined && { note }),
    ...(expires !== undefined && { expires_at: expires }),
  };
}

/** `pincer tools enable|disable <name>`. */
export async function toggleTool(action: 'enable' | 'disable', rest: string[], values: Parsed['values'], out: Out): Promise<number> {
  const [name, ...extra] = rest;
  if (!name || extra.length > 0) throw new UsageError(`usage: pincer tools ${action} <name>`);
  const { status, json } = await ownerRequest(configFrom(values), 'PATCH', `/tools/${encodeURIComponent(name)}`, { enabled: action === 'enable' });
  if (status !== 200) return failed(json, out);
  out.log(`Tool ${name} ${action}d.`);
  return 0;
}

/** `pincer pause` / `pincer resume`: every tool at once. */
export async function setPaused(paused: boolean, args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, {});
  if (positionals.length > 0) throw new UsageError(`${paused ? 'pause' : 'resume'} takes no arguments`);
  const { status, json } = await ownerRequest(configFrom(values), 'PATCH', '/settings', { paused });
  if (status !== 200) return failed(json, out);
  out.log(paused ? 'All tools paused; no tool runs until "pincer resume".' : 'Tools resumed.');
  return 0;
}

const CLIENTS_USAGE =
  'pincer clients [list] [--json] | clients tools <name> <tool,tool,…|all> | clients budget <name> <N|none> [--pin tool,tool] | clients memories <name> own|all | clients history <name> own|all';

/** One change to one client: `pincer clients <action> <name> …`, `rest` being what follows the action. */
interface ClientChange {
  rest: string[];
  parsed: Parsed;
  config: PincerConfig;
  out: Out;
}

const CLIENT_ACTIONS: Record<string, (change: ClientChange) => Promise<number>> = {
  memories: (change) => setClientScope('memories', change),
  history: (change) => setClientScope('history', change),
  tools: setClientTools,
  budget: setClientBudget,
};

export async function clients(args: string[], out: Out): Promise<number> {
  const parsed = parse(args, { json: { type: 'boolean' }, pin: { type: 'string' } });
  const [action = 'list', ...rest] = parsed.positionals;
  const config = configFrom(parsed.values);
  if (action === 'list' && rest.length === 0) return listClients(parsed, config, out);
  // Own keys only: an action such as "toString" is a typo, not a method of the table.
  const change = Object.hasOwn(CLIENT_ACTIONS, action) ? CLIENT_ACTIONS[action] : undefined;
  if (!change) throw new UsageError(`usage: ${CLIENTS_USAGE}`);
  return change({ rest, parsed, config, out });
}

async function listClients(parsed: Parsed, config: PincerConfig, out: Out): Promise<number> {
  only(parsed, ['json'], CLIENTS_USAGE);
  const { status, json } = await ownerRequest(config, 'GET', '/clients');
  if (status !== 200) return failed(json, out);
  if (parsed.values.json) return printJson(json, out);
  type Row = { name: string; tools: string[] | null; max_tools: number | null; memories: string; history: string };
  const list = (json as { clients: Row[] }).clients;
  out.log(
    table(
      ['CLIENT', 'MEMORIES', 'HISTORY', 'BUDGET', 'TOOLS'],
      list.map((c) => [
        c.name,
        c.memories,
        c.history,
        c.max_tools === null ? '-' : String(c.max_tools),
        c.tools === null ? 'all enabled' : c.tools.join(',') || '(none)',
      ]),
    ),
  );
  return 0;
}

/** `clients memories|history <name> own|all`: whether the client reads only what it wrote, or everything. */
async function setClientScope(what: 'memories' | 'history', { rest, parsed, config, out }: ClientChange): Promise<number> {
  only(parsed, [], CLIENTS_USAGE);
  const [name, scope, ...extra] = rest;
  if (!name || (scope !== 'own' && scope !== 'all') || extra.length > 0) throw new UsageError(`usage: ${CLIENTS_USAGE}`);
  const { status, json } = await ownerRequest(config, 'PUT', `/clients/${encodeURIComponent(name)}/${what}`, { scope });
  if (status !== 200) return failed(json, out);
  if (what === 'memories') {
    out.log(scope === 'own' ? `Client ${name} now sees only the memories it wrote.` : `Client ${name} now sees every memory.`);
  } else {
    out.log(
      scope === 'own'
        ? `Client ${name} now reads only its own calls in the history.`
        : `Client ${name} now reads every client's calls in the history, their arguments and results included.`,
    );
  }
  return 0;
}

async function setClientTools({ rest, parsed, config, out }: ClientChange): Promise<number> {
  only(parsed, [], CLIENTS_USAGE);
  const [name, list, ...extra] = rest;
  if (!name || !list || extra.length > 0) throw new UsageError(`usage: ${CLIENTS_USAGE}`);
  const tools = list === 'all' ? null : names(list);
  if (tools !== null && tools.length === 0) throw new UsageError('name at least one tool, or "all"');
  const { status, json } = await ownerRequest(config, 'PUT', `/clients/${encodeURIComponent(name)}/tools`, { tools });
  if (status !== 200) return failed(json, out);
  const profile = json as { tools: string[] | null };
  out.log(`Client ${name} may now use ${profile.tools === null ? 'every enabled tool' : profile.tools.join(', ')}.`);
  return 0;
}

async function setClientBudget({ rest, parsed, config, out }: ClientChange): Promise<number> {
  only(parsed, ['pin'], CLIENTS_USAGE);
  const [name, limit, ...extra] = rest;
  if (!name || !limit || extra.length > 0) throw new UsageError(`usage: ${CLIENTS_USAGE}`);
  const max = limit === 'none' ? null : Number(limit);
  if (max !== null && !(Number.isInteger(max) && max >= 1)) throw new UsageError(`the budget is a whole number from 1 (search_tools counted), or "none"; got "${limit}"`);
  const pinned = names(str(parsed.values.pin) ?? '');
  const { status, json } = await ownerRequest(config, 'PUT', `/clients/${encodeURIComponent(name)}/budget`, { max_tools: max, pinned });
  if (status !== 200) return failed(json, out);
  const budget = json as { max_tools: number | null; pinned: string[] };
  out.log(
    budget.max_tools === null
      ? `Client ${name} is listed every tool of its set.`
      : `Client ${name} is listed at most ${budget.max_tools} tools: search_tools${budget.pinned.length > 0 ? `, ${budget.pinned.join(', ')}` : ''} and what search_tools finds for it; it may still call any tool of its set by name.`,
  );
  return 0;
}

/** A comma list of tool names. */
function names(list: string): string[] {
  return list
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

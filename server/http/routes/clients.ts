import { Router, type Request, type Response } from 'express';
import { CLIENT_NAME_PATTERN, ClientNameError, DEFAULT_CLIENT, type Credentials } from '../../auth/credentials.js';
import { refuse } from '../../errors.js';
import type { EventBus } from '../../events/bus.js';
import type { ClientBudget, ClientHistoryScope, ClientList, ClientMemoryScope, ClientToolSet, DefaultToken, IssuedToken } from '../../contract/clients.js';
import { clientToolsReason, type ClientAccess } from '../../policy/access.js';
import { HISTORY_SCOPES, MEMORY_SCOPES, type HistoryScope, type MemoryScope, type Store } from '../../store/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { requireOwner } from '../identity.js';

export interface ClientRouteDeps {
  store: Store;
  access: ClientAccess;
  registry: ToolRegistry;
  events: EventBus;
  credentials: Credentials;
}

/** Owner settings: client tokens and per-client tool sets (the gateway's own settings are in settings.ts). */
export function clientRoutes(deps: ClientRouteDeps): Router {
  const router = Router();
  router.get('/clients', requireOwner, (_req, res) => listClients(deps, res));
  router.post('/clients', requireOwner, (req, res) => createClient(deps, req, res));
  router.delete('/clients/:name', requireOwner, (req, res) => revokeClient(deps, req, res));
  router.get('/clients/default/token', requireOwner, (_req, res) => defaultToken(deps, res));
  router.put('/clients/:name/memories', requireOwner, (req, res) => setMemoryScope(deps, req, res));
  router.put('/clients/:name/history', requireOwner, (req, res) => setHistoryScope(deps, req, res));
  router.put('/clients/:name/tools', requireOwner, (req, res) => setTools(deps, req, res));
  router.put('/clients/:name/budget', requireOwner, (req, res) => setBudget(deps, req, res));
  return router;
}

/** Names that are not tools, said as one problem. */
function unknownTools(registry: ToolRegistry, names: readonly string[]): string[] {
  const unknown = names.filter((t) => !registry.get(t));
  return unknown.length > 0 ? [`unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`] : [];
}

function listClients(deps: ClientRouteDeps, res: Response): void {
  const { store, access } = deps;
  const tokens = store.clients.list().filter((c) => c.revoked_at === null);
  const clients: ClientList['clients'] = [
    { ...access.profile(DEFAULT_CLIENT), memories: 'all', history: 'all', token: null },
    ...tokens.map((token) => ({ ...access.profile(token.name), memories: token.memories, history: token.history, token })),
  ];
  res.json({ clients } satisfies ClientList);
}

/**
 * The same code path as `pincer token create`: only the token's hash is stored; the token is in this answer only
 * (every answer is Cache-Control: no-store).
 */
function createClient(deps: ClientRouteDeps, req: Request, res: Response): void {
  const { events, credentials } = deps;
  const body = req.body as unknown;
  const extra = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).filter((k) => k !== 'name') : [];
  const name = (body as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string' || extra.length > 0) {
    throw refuse.badRequest(`Send {"name": "<client name>"}, for example {"name": "cursor"}${extra.length > 0 ? `; unknown field "${extra[0]}"` : ''}.`);
  }
  let issued;
  try {
    issued = credentials.issueClient(name);
  } catch (error) {
    if (error instanceof ClientNameError) {
      throw error.reason === 'taken' ? refuse.clientExists(error.message) : refuse.badRequest(error.message);
    }
    throw error;
  }
  // Nothing secret in the event: only the name.
  events.emit('tools', { reason: clientToolsReason(issued.name), names: [] });
  res.status(201).json(issued satisfies IssuedToken);
}

function revokeClient(deps: ClientRouteDeps, req: Request, res: Response): void {
  const { events, credentials } = deps;
  const name = String(req.params.name);
  if (name === DEFAULT_CLIENT) {
    const source = credentials.defaultTokenSource;
    throw refuse.badRequest(
      `The default token lives in ${source.kind === 'file' ? source.file : '<data dir>/token'} or PINCER_TOKEN; this gateway ` +
        `takes it from ${source.kind === 'file' ? 'that file' : 'PINCER_TOKEN'}. It cannot be revoked here: to replace it, ` +
        `${source.kind === 'file' ? 'delete the file' : 'change PINCER_TOKEN'} and restart Pincer. To give an assistant a ` +
        'token you can revoke, create a named client.',
    );
  }
  if (!CLIENT_NAME_PATTERN.test(name) || !credentials.revokeClient(name)) throw refuse.notFound(`An active client named "${name}"`);
  events.emit('tools', { reason: clientToolsReason(name), names: [] });
  res.json({ name, revoked: true });
}

function defaultToken(deps: ClientRouteDeps, res: Response): void {
  const { credentials } = deps;
  res.json({ token: credentials.defaultToken } satisfies DefaultToken);
}

/** Which memories a client sees through /memory and the memory tools: "own" (those it wrote) or "all". */
function setMemoryScope(deps: ClientRouteDeps, req: Request, res: Response): void {
  const { store } = deps;
  const name = String(req.params.name);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const extra = Object.keys(body).filter((k) => k !== 'scope');
  if (!MEMORY_SCOPES.includes(body.scope as MemoryScope) || extra.length > 0) {
    throw refuse.badRequest(`Send {"scope": "own"} (only the memories it wrote) or {"scope": "all"}${extra.length > 0 ? `; unknown field "${extra[0]}"` : ''}.`);
  }
  if (name === DEFAULT_CLIENT) throw refuse.badRequest('The default client always sees every memory; give an assistant a named client to limit it.');
  if (!CLIENT_NAME_PATTERN.test(name) || !store.clients.setMemoryScope(name, body.scope as MemoryScope)) throw refuse.notFound(`An active client named "${name}"`);
  res.json({ name, memories: body.scope as MemoryScope } satisfies ClientMemoryScope);
}

/**
 * Which calls a client reads in the history (/calls, the export, /events, /stats): "own" (those it made) or "all".
 */
function setHistoryScope(deps: ClientRouteDeps, req: Request, res: Response): void {
  const { store } = deps;
  const name = String(req.params.name);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const extra = Object.keys(body).filter((k) => k !== 'scope');
  if (!HISTORY_SCOPES.includes(body.scope as HistoryScope) || extra.length > 0) {
    throw refuse.badRequest(
      `Send {"scope": "own"} (only the calls it made) or {"scope": "all"} (every client's calls, arguments and results included)${extra.length > 0 ? `; unknown field "${extra[0]}"` : ''}.`,
    );
  }
  if (name === DEFAULT_CLIENT) throw refuse.badRequest('The default client always reads every call; give an assistant a named client to limit it.');
  if (!CLIENT_NAME_PATTERN.test(name) || !store.clients.setHistoryScope(name, body.scope as HistoryScope)) throw refuse.notFound(`An active client named "${name}"`);
  res.json({ name, history: body.scope as HistoryScope } satisfies ClientHistoryScope);
}

function setTools(deps: ClientRouteDeps, req: Request, res: Response): void {
  const { access, registry } = deps;
  const name = String(req.params.name);
  if (!CLIENT_NAME_PATTERN.test(name)) throw refuse.badRequest(`"${name}" is not a client name.`);
  const body = (req.body ?? {}) as { tools?: unknown };
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (key === 'max_tools') problems.push(`max_tools is set with PUT /clients/${name}/budget {"max_tools": N, "pinned": [names]}`);
    else if (key !== 'tools') problems.push(`unknown field "${key}"`);
  }
  const tools = body.tools;
  if (tools !== null && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) {
    problems.push('tools must be a list of tool names, or null for every enabled tool');
  } else if (Array.isArray(tools)) {
    problems.push(...unknownTools(registry, tools as string[]));
  }
  if (problems.length > 0) throw refuse.badRequest(`Invalid tool set: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
  const profile = access.setTools(name, tools === null ? null : [...new Set(tools as string[])]);
  res.json({ name, tools: profile.tools } satisfies ClientToolSet);
}

/** How many tools a client's lists carry, and which are always among them (any client, the default one too). */
function setBudget(deps: ClientRouteDeps, req: Request, res: Response): void {
  const { access, registry } = deps;
  const name = String(req.params.name);
  if (!CLIENT_NAME_PATTERN.test(name)) throw refuse.badRequest(`"${name}" is not a client name.`);
  const body = (req.body ?? {}) as { max_tools?: unknown; pinned?: unknown };
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (key !== 'max_tools' && key !== 'pinned') problems.push(`unknown field "${key}"`);
  const max = body.max_tools;
  if (max === undefined) problems.push('max_tools is required: a whole number from 1 to 1000 (search_tools counted), or null for no limit');
  else if (max !== null && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= 1000)) {
    problems.push(`max_tools must be a whole number from 1 to 1000 (search_tools counted), or null for no limit; got ${JSON.stringify(max)}`);
  }
  const pinned = body.pinned ?? [];
  if (!(Array.isArray(pinned) && pinned.every((t) => typeof t === 'string'))) problems.push('pinned must be a list of tool names');
  else problems.push(...unknownTools(registry, pinned as string[]));
  if (problems.length > 0) throw refuse.badRequest(`Invalid budget: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
  const profile = access.setBudget(name, max as number | null, [...new Set(pinned as string[])]);
  res.json({ name, max_tools: profile.max_tools, pinned: profile.pinned } satisfies ClientBudget);
}

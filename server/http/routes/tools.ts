import { Router, type Response } from 'express';
import { refuse } from '../../errors.js';
import type { ToolList, ToolSearchAnswer } from '../../contract/tools.js';
import type { ClientAccess } from '../../policy/access.js';
import { closestUsable } from '../../executor/prepare.js';
import { toAnthropicTool, toOpenAITool, toolSummary } from '../../tools/formats.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { SEARCH_LIMITS } from '../../tools/builtin/search-tools.js';
import type { ToolSearch } from '../../policy/tool-search.js';
import { identityOf, requireOwner } from '../identity.js';
import { sendJsonBytes } from '../send-json.js';
import { SerialisedToolLists } from '../tool-lists.js';

export function toolRoutes(registry: ToolRegistry, access: ClientAccess, search: ToolSearch): Router {
  const router = Router();
  const openAI = new SerialisedToolLists((tools, warning) => ({ tools: tools.map(toOpenAITool), ...(warning && { warning }) }));
  // Anthropic's API loads tools marked defer_loading on demand: a client over its budget gets the rest of its set so.
  const anthropic = new SerialisedToolLists((tools, warning, deferred) => ({
    tools: [...tools.map(toAnthropicTool), ...deferred.map((tool) => ({ ...toAnthropicTool(tool), defer_loading: true }))],
    ...(warning && { warning }),
  }));

  /** This caller's list in `format`: the owner sees everything; a client its own tool set, within its budget. */
  const sendList = (res: Response, format: SerialisedToolLists) => {
    const who = identityOf(res);
    const { tools, deferred, warning } = access.visible(registry, who.name, who.kind === 'owner');
    sendJsonBytes(res, format.body(`${who.kind}:${who.name}`, tools, warning, deferred));
  };

  router.get('/tools', (_req, res) => {
    const who = identityOf(res);
    const subset = who.kind === 'owner' ? null : access.profile(who.name).tools;
    const tools = registry
      .list()
      .filter((t) => !subset || subset.includes(t.definition.name))
      .map((t) => toolSummary(t, registry));
    res.json({ tools, count: tools.length, paused: access.paused } satisfies ToolList);
  });

  router.get('/tools/openai', (_req, res) => sendList(res, openAI));
  router.get('/tools/anthropic', (_req, res) => sendList(res, anthropic));

  /** The caller's own enabled tools ranked for a request typed by a person (also the search_tools tool). */
  router.get('/tools/search', (req, res) => {
    const who = identityOf(res);
    const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    if (q === '') throw refuse.badRequest('Say what to look for: GET /tools/search?q=<words>&limit=<1-50>.');
    if (q.length > SEARCH_LIMITS.query) throw refuse.badRequest(`q is longer than ${SEARCH_LIMITS.query} characters.`);
    const rawLimit = req.query.limit;
    const limit = rawLimit === undefined ? SEARCH_LIMITS.default : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.max) {
      throw refuse.badRequest(`limit must be a whole number from 1 to ${SEARCH_LIMITS.max}; got ${JSON.stringify(rawLimit)}.`);
    }
    res.json({ results: search.find(who.name, who.kind === 'owner', q, limit) } satisfies ToolSearchAnswer);
  });

  router.get('/tools/:name', (req, res) => {
    const tool = registry.get(req.params.name);
    if (!tool) {
      const who = identityOf(res);
      throw refuse.toolNotFound(req.params.name, closestUsable(registry, access, { client: who.name, owner: who.kind === 'owner' }, req.params.name));
    }
    res.json(toolSummary(tool, registry));
  });

  router.patch('/tools/:name', requireOwner, (req, res) => {
    const name = String(req.params.name);
    const tool = registry.get(name);
    if (!tool) throw refuse.toolNotFound(name);
    const body = req.body as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw refuse.badRequest('Send a JSON object such as {"enabled": false}.');
    const unknown = Object.keys(body).filter((k) => k !== 'enabled');
    if (unknown.length > 0 || typeof (body as { enabled?: unknown }).enabled !== 'boolean') {
      throw refuse.badRequest('The only setting is "enabled", a boolean: {"enabled": false} or {"enabled": true}.', {
        errors: unknown.map((k) => ({ path: `/${k}`, message: `unknown property "${k}"` })),
      });
    }
    registry.setEnabled(tool.definition.name, (body as { enabled: boolean }).enabled);
    res.json(toolSummary(tool, registry));
  });

  return router;
}

import { Router, type Response } from 'express';
import { refuse } from '../../errors.js';
import type { ClientAccess } from '../../policy/access.js';
import { toAnthropicTool, toOpenAITool, toolSummary } from '../../tools/formats.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { identityOf, requireOwner } from '../identity.js';
import { SerialisedToolLists, sendJsonBytes } from '../tool-lists.js';

export function toolRoutes(registry: ToolRegistry, access: ClientAccess): Router {
  const router = Router();
  const openAI = new SerialisedToolLists((tools, warning) => ({ tools: tools.map(toOpenAITool), ...(warning && { warning }) }));
  const anthropic = new SerialisedToolLists((tools, warning) => ({ tools: tools.map(toAnthropicTool), ...(warning && { warning }) }));

  /** This caller's list in `format`: the owner sees everything; a client its own tool set, capped by its profile. */
  const sendList = (res: Response, format: SerialisedToolLists) => {
    const who = identityOf(res);
    const { tools, warning } = access.visible(registry, who.name, who.kind === 'owner');
    sendJsonBytes(res, format.body(`${who.kind}:${who.name}`, tools, warning));
  };

  router.get('/tools', (_req, res) => {
    const who = identityOf(res);
    const subset = who.kind === 'owner' ? null : access.profile(who.name).tools;
    const tools = registry
      .list()
      .filter((t) => !subset || subset.includes(t.definition.name))
      .map((t) => toolSummary(t, registry));
    res.json({ tools, count: tools.length, paused: access.paused });
  });

  router.get('/tools/openai', (_req, res) => sendList(res, openAI));
  router.get('/tools/anthropic', (_req, res) => sendList(res, anthropic));

  router.get('/tools/:name', (req, res) => {
    const tool = registry.get(req.params.name);
    if (!tool) throw refuse.toolNotFound(req.params.name);
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

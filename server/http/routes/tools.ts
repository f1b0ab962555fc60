import { Router } from 'express';
import { refuse } from '../../errors.js';
import { enabledTools, toAnthropicTool, toOpenAITool, toolSummary } from '../../tools/formats.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { requireOwner } from '../identity.js';

export function toolRoutes(registry: ToolRegistry): Router {
  const router = Router();

  router.get('/tools', (_req, res) => {
    const tools = registry.list().map((t) => toolSummary(t, registry));
    res.json({ tools, count: tools.length });
  });

  router.get('/tools/openai', (_req, res) => {
    res.json({ tools: enabledTools(registry).map(toOpenAITool) });
  });

  router.get('/tools/anthropic', (_req, res) => {
    res.json({ tools: enabledTools(registry).map(toAnthropicTool) });
  });

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

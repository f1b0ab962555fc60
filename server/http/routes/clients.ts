import { Router } from 'express';
import { CLIENT_NAME_PATTERN, DEFAULT_CLIENT } from '../../auth/credentials.js';
import { refuse } from '../../errors.js';
import type { EventBus } from '../../events/bus.js';
import type { ClientAccess } from '../../policy/access.js';
import type { Store } from '../../store/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { requireOwner } from '../identity.js';

/** Owner settings: per-client tool sets and the pause switch. */
export function clientRoutes(store: Store, access: ClientAccess, registry: ToolRegistry, events: EventBus): Router {
  const router = Router();

  router.get('/clients', requireOwner, (_req, res) => {
    const tokens = store.clients.list().filter((c) => c.revoked_at === null);
    const clients = [
      { ...access.profile(DEFAULT_CLIENT), token: null },
      ...tokens.map((token) => ({ ...access.profile(token.name), token })),
    ];
    res.json({ clients });
  });

  router.put('/clients/:name/tools', requireOwner, (req, res) => {
    const name = String(req.params.name);
    if (!CLIENT_NAME_PATTERN.test(name)) throw refuse.badRequest(`"${name}" is not a client name.`);
    const body = (req.body ?? {}) as { tools?: unknown; max_tools?: unknown };
    const problems: string[] = [];
    for (const key of Object.keys(body)) if (key !== 'tools' && key !== 'max_tools') problems.push(`unknown field "${key}"`);
    const tools = body.tools;
    if (tools !== null && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) {
      problems.push('tools must be a list of tool names, or null for every enabled tool');
    } else if (Array.isArray(tools)) {
      const unknown = tools.filter((t) => !registry.get(t));
      if (unknown.length > 0) problems.push(`unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
    }
    const max = body.max_tools ?? null;
    if (max !== null && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= 1000)) problems.push('max_tools must be a whole number from 1 to 1000, or null');
    if (problems.length > 0) throw refuse.badRequest(`Invalid tool set: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
    const profile = { name, tools: tools === null ? null : [...new Set(tools as string[])], max_tools: max as number | null };
    access.setProfile(profile);
    events.emit('tools', { reason: `client:${name}`, names: profile.tools ?? [] });
    res.json(profile);
  });

  router.get('/settings', requireOwner, (_req, res) => {
    res.json({ paused: access.paused });
  });

  router.patch('/settings', requireOwner, (req, res) => {
    const body = (req.body ?? {}) as { paused?: unknown };
    if (Object.keys(body).some((k) => k !== 'paused') || typeof body.paused !== 'boolean') {
      throw refuse.badRequest('The setting here is "paused", a boolean: {"paused": true} stops every tool until {"paused": false}.');
    }
    access.setPaused(body.paused);
    events.emit('tools', { reason: access.paused ? 'paused' : 'resumed', names: [] });
    res.json({ paused: access.paused });
  });

  return router;
}

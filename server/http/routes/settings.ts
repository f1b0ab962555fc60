import { Router } from 'express';
import type { GatewaySettings } from '../../config/settings.js';
import type { EventBus } from '../../events/bus.js';
import { requireOwner } from '../identity.js';

/** The owner's settings: the pause switch, the roots, the approval timeout and the LLM the bridge talks to. */
export function settingsRoutes(settings: GatewaySettings, events: EventBus): Router {
  const router = Router();

  router.get('/settings', requireOwner, (_req, res) => {
    res.json(settings.view());
  });

  router.patch('/settings', requireOwner, (req, res) => {
    const { view, changed } = settings.update(req.body);
    if (changed.includes('paused')) events.emit('tools', { reason: view.paused ? 'paused' : 'resumed', names: [] });
    // Roots change what the file tools may reach: open dashboards and clients re-read what they show. A change of
    // paused alone was announced just above; a second event would only make them re-read twice.
    if (changed.some((key) => key !== 'paused')) events.emit('tools', { reason: 'settings', names: [] });
    res.json(view);
  });

  return router;
}

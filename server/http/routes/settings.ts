import { Router } from 'express';
import type { GatewaySettings } from '../../config/settings.js';
import { requireOwner } from '../identity.js';

/** The owner's settings: the pause switch, the roots, the approval timeout and the LLM the bridge talks to. */
export function settingsRoutes(settings: GatewaySettings): Router {
  const router = Router();

  router.get('/settings', requireOwner, (_req, res) => {
    res.json(settings.view());
  });

  router.patch('/settings', requireOwner, (req, res) => {
    // The gateway announces the change on its event bus (GatewaySettings' `changed` hook), whoever made it.
    res.json(settings.update(req.body).view);
  });

  return router;
}

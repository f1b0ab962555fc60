import { Router } from 'express';
import type { GatewaySettings, SettingsView } from '../../config/settings.js';
import type { HistoryPreview } from '../../contract/settings.js';
import { requireOwner } from '../identity.js';

/**
 * The owner's settings: the pause switch, the roots, the approval timeout, the LLM the bridge talks to, the history's
 * limits and the token-less Ollama proxy.
 */

export function settingsRoutes(settings: GatewaySettings): Router {
  const router = Router();

  router.get('/settings', requireOwner, (_req, res) => {
    res.json(settings.view());
  });

  router.patch('/settings', requireOwner, (req, res) => {
    // The gateway announces the change on its event bus (a listener of GatewaySettings' one change), whoever made it.
    res.json(settings.update(req.body).view);
  });

  // A POST because it takes a body like PATCH's "history"; it changes nothing.
  router.post('/settings/history/preview', requireOwner, (req, res) => {
    res.json(settings.previewHistory(req.body) satisfies HistoryPreview);
  });

  return router;
}

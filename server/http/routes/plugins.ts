import { Router, type Request, type Response } from 'express';
import { refuse } from '../../errors.js';
import type { PluginList } from '../../contract/sources.js';
import type { PluginManager } from '../../plugins/manager.js';
import { identityOf, requireOwner } from '../identity.js';

/**
 * Plugins: anyone may see what is loaded and why something is not (as with /tools); only the owner accepts a new
 * or changed plugin, disables, enables or removes one.
 */
export function pluginRoutes(plugins: PluginManager): Router {
  const router = Router();

  router.get('/plugins', (_req, res) => {
    const list = plugins.list();
    const body: PluginList = { plugins: list, count: list.length, folder: plugins.userDir, ignored: [...plugins.ignored()] };
    res.json(body);
  });

  router.get('/plugins/:name', (req, res) => {
    const view = plugins.get(String(req.params.name));
    if (!view) throw refuse.notFound(`A plugin named "${req.params.name}"`);
    res.json(view);
  });

  const action = (run: (name: string, by: string) => Promise<unknown>) => async (req: Request, res: Response) => {
    res.json(await run(String(req.params.name), identityOf(res).name));
  };

  // `{"hash"}` (optional): accept only if the plugin is still what the owner was shown.
  router.post('/plugins/:name/accept', requireOwner, async (req, res) => {
    const hash = (req.body as { hash?: unknown } | undefined)?.hash;
    if (hash !== undefined && typeof hash !== 'string') throw refuse.badRequest('"hash" must be the plugin\'s hash as GET /plugins/{name} shows it.');
    res.json(await plugins.accept(String(req.params.name), identityOf(res).name, hash));
  });
  router.post('/plugins/:name/disable', requireOwner, action((name) => plugins.setDisabled(name, true)));
  router.post('/plugins/:name/enable', requireOwner, action((name) => plugins.setDisabled(name, false)));
  router.delete(
    '/plugins/:name',
    requireOwner,
    action(async (name) => {
      await plugins.remove(name);
      return { name, removed: true };
    }),
  );
  // `reload` is the documented name; `rescan` is kept for the dashboards and scripts that already use it.
  router.post(['/plugins/reload', '/plugins/rescan'], requireOwner, async (_req, res) => {
    await plugins.rescan();
    res.json({ plugins: plugins.list() });
  });

  return router;
}

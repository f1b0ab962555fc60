import { Router } from 'express';
import type { SourceAcceptBody, SourceList, SourceView } from '../../contract/sources.js';
import { refuse } from '../../errors.js';
import type { SourceRegistry } from '../../tools/sources/registry.js';
import { RISKS, type Risk } from '../../tools/types.js';
import type { Redactor } from '../../util/redact.js';
import { identityOf, requireOwner } from '../identity.js';

/**
 * Every tool source of every kind (plugins, imported MCP servers) in one vocabulary, for the dashboard's one view:
 * anyone may see them (as /plugins and /mcp-servers); only the owner accepts, disables or enables one. Each kind's
 * own routes stay for its details and for adding or removing it.
 */
export function sourceRoutes(sources: SourceRegistry, redactor: Redactor): Router {
  const router = Router();

  // An error can quote a URL with its token: only the owner sees it as it is.
  const shown = (view: SourceView, owner: boolean): SourceView => (owner || view.reason === null ? view : { ...view, reason: redactor.text(view.reason) });

  router.get('/sources', (_req, res) => {
    const owner = identityOf(res).kind === 'owner';
    const body: SourceList = { sources: sources.list().map((view) => shown(view, owner)) };
    res.json(body);
  });

  router.post('/sources/:kind/:name/accept', requireOwner, async (req, res) => {
    const body = acceptBody(req.body);
    res.json(await sources.get(String(req.params.kind)).accept(String(req.params.name), body, identityOf(res).name));
  });

  router.post('/sources/:kind/:name/disable', requireOwner, async (req, res) => {
    const { tools } = acceptBody(req.body, ['tools']);
    res.json(await sources.get(String(req.params.kind)).disable(String(req.params.name), tools));
  });

  router.post('/sources/:kind/:name/enable', requireOwner, async (req, res) => {
    acceptBody(req.body, []);
    res.json(await sources.get(String(req.params.kind)).enable(String(req.params.name)));
  });

  return router;
}

/** The body of accept, disable and enable: only the `allowed` fields, each of its type. */
function acceptBody(raw: unknown, allowed: readonly (keyof SourceAcceptBody)[] = ['tools', 'risk', 'hash']): SourceAcceptBody {
  const body = raw ?? {};
  const shape = `{${allowed.map((k) => `"${k}"?`).join(', ')}}`;
  if (typeof body !== 'object' || Array.isArray(body)) throw refuse.badRequest(`Send a JSON object ${shape}.`);
  const extra = Object.keys(body).find((k) => !(allowed as readonly string[]).includes(k));
  if (extra !== undefined) throw refuse.badRequest(`Unknown field "${extra}": send ${shape}.`);
  const { tools, risk, hash } = body as Record<string, unknown>;
  if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) throw refuse.badRequest('"tools" must be an array of the source\'s tool names.');
  if (risk !== undefined && !RISKS.includes(risk as Risk)) throw refuse.badRequest(`"risk" must be one of ${RISKS.join(', ')}.`);
  if (hash !== undefined && typeof hash !== 'string') throw refuse.badRequest('"hash" must be the hash the source showed.');
  return { ...(tools !== undefined && { tools: tools as string[] }), ...(risk !== undefined && { risk: risk as Risk }), ...(hash !== undefined && { hash }) };
}

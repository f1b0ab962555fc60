import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { McpCatalog, McpServerList } from '../../contract/sources.js';
import { mcpCatalog } from '../../mcp/client/catalog.js';
import { parseServerEntry } from '../../mcp/client/entry.js';
import type { McpServerManager, McpServerView } from '../../mcp/client/servers.js';
import { RISKS, type Risk } from '../../tools/types.js';
import { identityOf, requireOwner } from '../identity.js';
import type { Redactor } from '../../util/redact.js';

/**
 * Imported MCP servers: anyone may see their status, last error, restarts and tools (as with /plugins); only the
 * owner adds, removes, or accepts a server's new, changed or flagged tools (rating their risk).
 */
export function mcpServerRoutes(servers: McpServerManager, redactor: Redactor, roots: () => readonly string[]): Router {
  const router = Router();

  // The command line or URL may carry a secret the owner wrote into it, and what a server prints to standard error
  // may hold its own: only the owner sees them. An error can quote a URL with its token: others see it redacted.
  const shown = (view: McpServerView, owner: boolean) =>
    owner ? view : { ...view, target: null, stderr: null, last_error: view.last_error === null ? null : redactor.text(view.last_error) };

  router.get('/mcp-servers', (_req, res) => {
    const owner = identityOf(res).kind === 'owner';
    const list = servers.list().map((v) => shown(v, owner));
    const body: McpServerList = { servers: list, count: list.length };
    res.json(body);
  });

  // Well-known servers with pinned versions, their command lines filled in for the shared folders (the owner's).
  router.get('/mcp-servers/catalog', requireOwner, (_req, res) => {
    const body: McpCatalog = { catalog: mcpCatalog(roots()) };
    res.json(body);
  });

  router.get('/mcp-servers/:name', (req, res) => {
    const view = servers.get(String(req.params.name));
    if (!view) throw refuse.notFound(`An MCP server named "${req.params.name}"`);
    res.json(shown(view, identityOf(res).kind === 'owner'));
  });

  router.put('/mcp-servers/:name', requireOwner, async (req, res) => {
    const name = String(req.params.name);
    const parsed = parseServerEntry(name, req.body);
    if ('problem' in parsed) throw refuse.badRequest(`mcp_servers.${name}: ${parsed.problem}.`);
    res.json(await servers.put(name, req.body));
  });

  router.delete('/mcp-servers/:name', requireOwner, async (req, res) => {
    const name = String(req.params.name);
    if (!(await servers.remove(name))) throw refuse.notFound(`An MCP server named "${name}"`);
    res.json({ removed: name });
  });

  router.post('/mcp-servers/:name/accept', requireOwner, (req, res) => {
    const body = selection(req.body, ['tools', 'risk']);
    if (body.risk !== undefined && !RISKS.includes(body.risk as Risk)) throw refuse.badRequest(`"risk" must be one of ${RISKS.join(', ')}.`);
    const view = servers.accept(String(req.params.name), {
      ...(body.tools !== undefined && { tools: body.tools }),
      ...(body.risk !== undefined && { risk: body.risk as Risk }),
    });
    if (!view) throw refuse.notFound(`An MCP server named "${req.params.name}"`);
    if ('problem' in view) throw refuse.badRequest(`Nothing accepted: ${view.problem}.`);
    res.json(view);
  });

  // With {"tools"}: those tools are turned off (they stay off until accepted). Without: the whole server is stopped
  // and saved as disabled in config.json.
  router.post('/mcp-servers/:name/disable', requireOwner, async (req, res) => {
    const name = String(req.params.name);
    const { tools } = selection(req.body, ['tools']);
    const view = tools ? servers.disableTools(name, tools) : await servers.setEnabled(name, false);
    if (!view) throw refuse.notFound(`An MCP server named "${name}"`);
    if ('problem' in view) throw refuse.badRequest(`Nothing disabled: ${view.problem}.`);
    res.json(view);
  });

  router.post('/mcp-servers/:name/enable', requireOwner, async (req, res) => {
    const name = String(req.params.name);
    selection(req.body, []);
    const view = await servers.setEnabled(name, true);
    if (!view) throw refuse.notFound(`An MCP server named "${name}"`);
    if ('problem' in view) throw refuse.badRequest(`The MCP server "${name}" cannot be enabled: ${view.problem}.`);
    res.json(view);
  });

  return router;
}

/** The body of accept and disable: only `allowed` fields; `tools`, if sent, the server's tool names. */
function selection(raw: unknown, allowed: readonly string[]): { tools?: string[]; risk?: unknown } {
  const body = raw ?? {};
  const shape = `{${allowed.map((k) => `"${k}"?`).join(', ')}}`;
  if (typeof body !== 'object' || Array.isArray(body)) throw refuse.badRequest(`Send a JSON object ${shape}.`);
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw refuse.badRequest(`Unknown field "${extra}": send ${shape}.`);
  const { tools, risk } = body as { tools?: unknown; risk?: unknown };
  if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) {
    throw refuse.badRequest('"tools" must be an array of the server\'s tool names.');
  }
  return { ...(tools !== undefined && { tools: tools as string[] }), ...(risk !== undefined && { risk }) };
}

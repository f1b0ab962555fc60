import express, { type Request, type Response } from 'express';
import type { Credentials } from '../auth/credentials.js';
import type { GatewaySettings } from '../config/settings.js';
import { errorBody, statusOf } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { Executor } from '../executor/executor.js';
import type { Memories } from '../memory/memories.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { bodyParsers, defaultBodyReader } from './body-routes.js';
import { directCalls, type DirectRoute } from './direct-calls.js';
import { errorHandler } from './error-answer.js';
import { dashboardRoutes } from './dashboard.js';
import type { EventStreams } from './event-streams.js';
import { hostGuard, originGuard, securityHeaders, type Origins } from './guards.js';
import { identify } from './identity.js';
import { listRoutes, methodsAt, type RouteEntry } from './route-list.js';
import { authRoutes } from './routes/auth.js';
import { approvalRoutes } from './routes/approvals.js';
import { clientRoutes } from './routes/clients.js';
import { ruleRoutes } from './routes/rules.js';
import { settingsRoutes } from './routes/settings.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { ClientAccess } from '../policy/access.js';
import type { RuleBook } from '../policy/rules.js';
import { cacheRoutes } from './routes/cache.js';
import { callRoutes } from './routes/calls.js';
import { eventRoutes } from './routes/events.js';
import { memoryImport, memoryRoutes } from './routes/memory.js';
import { callAnswer, executeRoutes } from './routes/execute.js';
import { openApiRoutes } from './routes/openapi.js';
import { policyRoutes } from './routes/policy.js';
import { statsRoutes } from './routes/stats.js';
import type { ToolSearch } from '../policy/tool-search.js';
import { toolRoutes } from './routes/tools.js';
import { pluginRoutes } from './routes/plugins.js';
import type { PluginManager } from '../plugins/manager.js';
import type { LlmBridge } from '../llm/bridge.js';
import { chatRoutes } from './routes/chat.js';
import { openAIProxyRoutes } from './routes/openai-proxy.js';
import { ollamaProxyRoutes, tokenlessOllama } from './routes/ollama-proxy.js';
import type { McpSessions } from '../mcp/sessions.js';
import { mcpRoutes } from './routes/mcp.js';
import type { McpServerManager } from '../mcp/client/servers.js';
import { mcpServerRoutes } from './routes/mcp-servers.js';
import { sourceRoutes } from './routes/sources.js';
import type { SourceRegistry } from '../tools/sources/registry.js';

export interface HttpDeps {
  version: string;
  /** The OS sandbox of run_shell and run_python here, for /health. */
  sandbox?: { kind: string; detail: string };
  registry: ToolRegistry;
  executor: Executor;
  store: Store;
  memories: Memories;
  plugins: PluginManager;
  events: EventBus;
  /** The open GET /events streams. */
  streams: EventStreams;
  credentials: Credentials;
  approvals: ApprovalBroker;
  rules: RuleBook;
  access: ClientAccess;
  /** Tool search over each caller's own tools (GET /tools/search). */
  toolSearch: ToolSearch;
  settings: GatewaySettings;
  clientAuth: boolean;
  bodyLimitBytes: number;
  /** The LLM bridge behind POST /chat and the two proxies. */
  llm: LlmBridge;
  /** The chat routes' own body limit (long histories). */
  chatBodyLimitBytes: number;
  /** The Ollama-compatible proxy without a token, if the owner turned it on; read on every request (Settings change it). */
  ollamaProxy: () => { tokenless: boolean; client: string };
  jsonMaxDepth: number;
  /** Where the built dashboard is; undefined means the one built with this package. */
  dashboardDir?: string | undefined;
  /** The terminal command that prints a login link for this gateway, shown on the login screen (GET /session). */
  loginCommand?: string;
  /** The names and origins this gateway answers to; known once it listens. */
  origins: () => Origins;
  /** MCP Streamable HTTP sessions (/mcp); absent: no MCP endpoint. */
  mcp?: McpSessions;
  /** Imported MCP servers (/mcp-servers). */
  mcpServers?: McpServerManager;
  /** Every kind of tool source, in one vocabulary (/sources). */
  sources?: SourceRegistry;
}

/** Builds the Express app and the direct route of tool calls in front of it; listening is the caller's business. */
export function createHttpApp(deps: HttpDeps): { app: express.Express; direct: DirectRoute } {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // What runs for every request runs for the direct route of tool calls too (at the end): a middleware added for all
  // requests goes into these lists, not beside them.
  const guards = [securityHeaders, hostGuard(deps.origins), originGuard(deps.origins)];
  app.use(guards);

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', version: deps.version, ...(deps.sandbox ? { sandbox: deps.sandbox } : {}) });
  });
  app.use('/auth', authRoutes(deps.credentials));
  dashboardRoutes(app, deps.credentials, deps.version, deps.dashboardDir, deps.loginCommand);

  // Security: who is calling is settled before the body is read, so an unauthenticated peer cannot make the
  // gateway buffer and parse a megabyte of JSON per request.
  const identifyCaller = tokenlessOllama(deps.ollamaProxy, identify(deps.credentials, deps.clientAuth, () => deps.origins().origins));
  app.use(identifyCaller);
  // Every body is read here, once, by the reader its route needs (body-routes.ts).
  const limits = { limitBytes: deps.bodyLimitBytes, chatLimitBytes: deps.chatBodyLimitBytes, maxDepth: deps.jsonMaxDepth };
  app.use(bodyParsers(limits));
  app.post('/memory/import', ...memoryImport(deps.memories));
  if (deps.mcp) app.use('/mcp', mcpRoutes(deps.mcp, deps.bodyLimitBytes, deps.jsonMaxDepth));

  // Calls first: they are the hot path, and every router in front of them is matched against each one.
  app.use(executeRoutes(deps.executor, deps.jsonMaxDepth));
  app.use(toolRoutes(deps.registry, deps.access, deps.toolSearch));
  app.use(approvalRoutes(deps.approvals));
  app.use(ruleRoutes(deps.rules, deps.executor.redactor));
  app.use(clientRoutes(deps));
  app.use(settingsRoutes(deps.settings));
  app.use(policyRoutes(deps.executor));
  app.use(callRoutes(deps.store, deps.executor));
  app.use(eventRoutes(deps.events, deps.streams, deps.version, deps.credentials, (client) => deps.store.clients.scopes(client)));
  app.use(statsRoutes(deps.store, deps.registry, deps.executor.cache));
  app.use(cacheRoutes(deps.executor.cache, deps.registry));
  app.use(memoryRoutes(deps.memories));
  app.use(pluginRoutes(deps.plugins));
  if (deps.mcpServers) app.use(mcpServerRoutes(deps.mcpServers, deps.executor.redactor, () => deps.settings.view().roots));
  if (deps.sources) app.use(sourceRoutes(deps.sources, deps.executor.redactor));
  app.use(openApiRoutes(deps.registry, deps.access, deps.version));
  app.use(chatRoutes(deps.llm));
  app.use(openAIProxyRoutes(deps.llm));
  app.use(ollamaProxyRoutes(deps.llm, deps.access, deps.registry, deps.ollamaProxy, deps.version));

  // Read from the router once it is complete, so the answer to a wrong method cannot drift from the routes.
  let routes: RouteEntry[] | undefined;
  app.use((req: Request, res: Response) => {
    routes ??= listRoutes(app);
    const allowed = methodsAt(routes, req.path);
    if (allowed.length === 0) {
      res.status(404).json({ success: false, error: errorBody('NOT_FOUND', `No route ${req.method} ${req.path}.`) });
      return;
    }
    const named = allowed.filter((m) => m !== 'HEAD');
    const takes = named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} or ${named.at(-1)!}`;
    res
      .status(statusOf('METHOD_NOT_ALLOWED'))
      .set('Allow', allowed.join(', '))
      .json({
        success: false,
        error: errorBody('METHOD_NOT_ALLOWED', `${req.path} takes ${takes}, not ${req.method}.`, { allow: allowed }),
      });
  });
  app.use(errorHandler);

  // The plain form of a tool call skips the router: the same checks as above, then the same answer (direct-calls.ts).
  const direct = directCalls({ checks: [...guards, identifyCaller, defaultBodyReader(limits)], answer: callAnswer(deps.executor), fail: errorHandler });
  return { app, direct };
}

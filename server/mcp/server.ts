import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type LoggingLevel,
  type ProgressToken,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Executor } from '../executor/executor.js';
import { closestUsable } from '../executor/prepare.js';
import { didYouMean } from '../util/closest.js';
import type { ClientAccess } from '../policy/access.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ProgressUpdate } from '../tools/types.js';
import type { McpServerManager } from './client/servers.js';
import { toCallToolResult, toMcpTool } from './results.js';

/** Who an MCP session belongs to: the token's client (or the owner's dashboard session) that opened it. */
export interface McpIdentity {
  name: string;
  owner: boolean;
}

export interface McpServerDeps {
  registry: ToolRegistry;
  executor: Executor;
  access: ClientAccess;
  version: string;
  /** The imported servers, whose resource links (named in a client's results) the client may read through Pincer. */
  resources?: Pick<McpServerManager, 'offeredResources' | 'readResource'>;
  /**
   * How often a call waiting for the owner reports progress (clients that reset their timeout on it keep waiting);
   * also how long an answer may take before its POST becomes a stream with keepalives.
   */
  progressIntervalMs?: number;
  /** How long a task of the stateless protocol (a call waiting for the owner) is kept from its creation. */
  taskTtlMs?: number;
}

export interface McpCallContext {
  /** The MCP client's own name (`clientInfo.name`), as it says: kept beside the identity, never used as it. */
  clientName(): string | undefined;
  /** Fires when the request's HTTP stream is gone before the answer (the client hung up). */
  hangup(requestId: string | number): AbortSignal | undefined;
  /** A call began waiting for the owner (the stateless protocol may turn it into a task the client polls). */
  pending?(requestId: string | number, approvalId: string): void;
}

export const DEFAULT_PROGRESS_INTERVAL_MS = 5_000;
/** MCP's error code for a resource that does not exist (or is not the caller's to read). */
const RESOURCE_NOT_FOUND = -32002;

/** Pincer as it names itself to MCP clients of the stateless protocol (in every result), as initialize does. */
export function serverInfo(deps: Pick<McpServerDeps, 'version'>): { name: string; title: string; version: string } {
  return { name: 'pincer', title: 'Pincer', version: deps.version };
}

export const INSTRUCTIONS =
  'Pincer runs these tools on the user\'s machine behind a policy. Some calls wait for the user to approve them: ' +
  'the call stays open (with progress notifications) until they answer. A refused call comes back as an error ' +
  'result whose text starts with the reason\'s name (POLICY_DENIED, APPROVAL_DENIED, APPROVAL_TIMEOUT, ' +
  'INVALID_ARGUMENTS, TOOL_DISABLED, TOOL_HELD…) and says what can be done about it.';

/**
 * One MCP server (the SDK's low-level Server, so tools keep their JSON Schemas and errors keep the spec's shapes)
 * for one session. Every tools/call goes through the executor as the session's identity, `via: "mcp"`.
 */
export function createMcpServer(deps: McpServerDeps, identity: McpIdentity, context: McpCallContext): Server {
  const server = new Server(
    { name: 'pincer', title: 'Pincer', version: deps.version },
    { capabilities: { tools: { listChanged: true }, logging: {}, resources: {} }, instructions: INSTRUCTIONS },
  );

  // The least severe level the client wants to hear (logging/setLevel). Until it sets one it hears none: a client
  // that never asked gets its answers as before, with nothing else on the way.
  let logLevel: LoggingLevel | undefined;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel = request.params.level;
    return {};
  });
  const log: SessionLog = (level, data, send) => {
    if (logLevel === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logLevel)) return;
    send({ method: 'notifications/message', params: { level, logger: 'pincer', data } }).catch(() => undefined);
  };

  // Only the resources imported servers named in this identity's own results, read through the server that named them.
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: (deps.resources?.offeredResources(identity.name) ?? []).map((offer) => ({
      uri: offer.uri,
      name: offer.name,
      ...(offer.mimeType !== undefined && { mimeType: offer.mimeType }),
      description: `Named in a result of ${offer.tool} (MCP server "${offer.server}").`,
    })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(deps, identity, request.params.uri));

  server.setRequestHandler(ListToolsRequestSchema, () => {
    const { tools } = deps.access.visible(deps.registry, identity.name, identity.owner);
    return { tools: tools.map(toMcpTool) };
  });

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(deps, identity, context, log, request, extra));

  return server;
}

/**
 * resources/read: only a resource an imported server named in this identity's own results, read through that
 * server, while the identity may still call the tool that named it.
 */
async function readResource(deps: McpServerDeps, identity: McpIdentity, uri: string): Promise<{ contents: [] }> {
  // Security: the tool that named it must still be one this identity may call (enabled, in its set, not paused).
  const allowed = (tool: string) =>
    deps.registry.get(tool) !== undefined && deps.registry.isEnabled(tool) && !deps.access.refusal(identity.name, tool, identity.owner);
  let read: { contents: unknown[] } | undefined;
  try {
    read = await deps.resources?.readResource(identity.name, uri, allowed);
  } catch (error) {
    throw new McpError(ErrorCode.InternalError, (error as Error).message);
  }
  if (!read) {
    throw new McpError(
      RESOURCE_NOT_FOUND,
      `Resource not found: Pincer reads only resources that an imported MCP server named in a result of one of your own calls within the last hour, through that server, while you may still call the tool that returned it; "${uri}" is not one of them.`,
      { uri },
    );
  }
  return read as { contents: [] };
}

/** Sends a log line to the client when it asked for this level (logging/setLevel). */
type SessionLog = (level: LoggingLevel, data: Record<string, unknown>, send: (note: ServerNotification) => Promise<void>) => void;

/**
 * tools/call through the executor as the session's identity; a wait for the owner is told as progress (and as a log
 * line), the tool's own progress after it.
 */
async function callTool(
  deps: McpServerDeps,
  identity: McpIdentity,
  context: McpCallContext,
  log: SessionLog,
  request: CallToolRequest,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<CallToolResult> {
  const name = request.params.name;
  // Protocol error, not a result: the model asked for a tool that does not exist (2025-11-25: -32602). A tool held
  // back for the owner exists: the executor answers it as an error result the model can read (TOOL_HELD).
  if (!deps.registry.get(name) && !deps.registry.held(name)) {
    const closest = closestUsable(deps.registry, deps.access, { client: identity.name, owner: identity.owner }, name);
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: "${name}".${didYouMean(closest)} Call tools/list for the tools available.`, { did_you_mean: closest });
  }
  const hangup = context.hangup(extra.requestId);
  const signal = hangup ? AbortSignal.any([extra.signal, hangup]) : extra.signal;
  const progress = progressChannel(request.params._meta?.progressToken, (note) => extra.sendNotification(note));
  let waiting: NodeJS.Timeout | undefined;
  const outcome = await deps.executor
    .execute({
      tool: name,
      arguments: request.params.arguments ?? {},
      client: identity.name,
      owner: identity.owner,
      via: viaLabel(context.clientName()),
      signal,
      onPending: ({ approval_id }) => {
        context.pending?.(extra.requestId, approval_id);
        const message = `Waiting for the owner to approve this call (approval ${approval_id}); it runs once they allow it.`;
        // Also for clients that sent no progress token but asked for logs: a log line says why the answer is slow.
        log('notice', { tool: name, approval_id, message }, (note) => extra.sendNotification(note));
        if (!progress) return;
        const beat = () => progress.beat(message);
        beat();
        waiting = setInterval(beat, deps.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
      },
      ...(progress && {
        onProgress: (update) => {
          // The call runs: its own progress replaces the waiting beats.
          clearInterval(waiting);
          progress.report(update);
        },
      }),
    })
    .finally(() => clearInterval(waiting));
  if (!outcome.envelope.success && outcome.envelope.error.name === 'TOOL_NOT_FOUND') {
    // Unregistered while the call was on its way.
    throw new McpError(ErrorCode.InvalidParams, outcome.envelope.error.message);
  }
  return toCallToolResult(outcome, deps.registry.get(name)?.definition.outputSchema !== undefined);
}

/** MCP's log levels, least severe first. */
const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

/**
 * The progress notifications of one call, for a client that sent a progress token (none otherwise): the beats of a
 * wait for the owner, then the tool's own reports. MCP wants each value above the one before, so a report that
 * would go back (a tool counting from 0 after three beats) is not sent.
 */
function progressChannel(token: ProgressToken | undefined, send: (note: ServerNotification) => Promise<void>) {
  if (token === undefined) return undefined;
  let last: number | undefined;
  const notify = (update: ProgressUpdate): void => {
    if (last !== undefined && !(update.progress > last)) return;
    last = update.progress;
    send({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => undefined);
  };
  return {
    beat: (message: string) => notify({ progress: Math.floor(last ?? 0) + 1, message }),
    report: notify,
  };
}

/**
 * The door as history shows it: `mcp`, with the client's self-reported name beside it (`mcp (Claude Desktop)`).
 * Security: the name is whatever the peer sent; control characters and length are cut so it cannot forge log lines.
 */
export function viaLabel(clientName: string | undefined): string {
  // Cut by code point, not UTF-16 unit: half an emoji would be stored as a replacement character.
  const name = Array.from(clientName?.replace(/[\p{C}]+/gu, ' ').replace(/\s+/g, ' ').trim() ?? '').slice(0, 64).join('');
  return name ? `mcp (${name})` : 'mcp';
}

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { Executor } from '../executor/executor.js';
import type { ClientAccess } from '../policy/access.js';
import type { ToolRegistry } from '../tools/registry.js';
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
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => {
    const { tools } = deps.access.visible(deps.registry, identity.name, identity.owner);
    return { tools: tools.map(toMcpTool) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    // Protocol error, not a result: the model asked for a tool that does not exist (2025-11-25: -32602). A tool held
    // back for the owner exists: the executor answers it as an error result the model can read (TOOL_HELD).
    if (!deps.registry.get(name) && !deps.registry.held(name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: "${name}". Call tools/list for the tools available.`);
    }
    const hangup = context.hangup(extra.requestId);
    const signal = hangup ? AbortSignal.any([extra.signal, hangup]) : extra.signal;
    const progressToken = request.params._meta?.progressToken;
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
          if (progressToken === undefined) return;
          let step = 0;
          const report = () => {
            step += 1;
            const note: ServerNotification = {
              method: 'notifications/progress',
              params: {
                progressToken,
                progress: step,
                message: `Waiting for the owner to approve this call (approval ${approval_id}); it runs once they allow it.`,
              },
            };
            extra.sendNotification(note).catch(() => undefined);
          };
          report();
          waiting = setInterval(report, deps.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
        },
      })
      .finally(() => clearInterval(waiting));
    if (!outcome.envelope.success && outcome.envelope.error.name === 'TOOL_NOT_FOUND') {
      // Unregistered while the call was on its way.
      throw new McpError(ErrorCode.InvalidParams, outcome.envelope.error.message);
    }
    return toCallToolResult(outcome);
  });

  return server;
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

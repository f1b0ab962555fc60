import type { ApprovalEvent } from './approvals.js';
import type { CallPhase, CallRecord, LiveCall } from './calls.js';
import type { RuleChange } from './rules.js';
import type { McpServerStatus, PluginStatus } from './sources.js';
import type { ToolsChanged } from './tools.js';

/**
 * What happens in the gateway, by event name: the payloads of the in-process bus (`GatewayEvents`, as its listeners'
 * arguments) and of the `GET /events` stream (`StreamEvents`), which sends the same events, a call as its live row.
 */

/** A call started, waits for the owner, or ended. */
export interface CallEvent {
  phase: CallPhase;
  call: CallRecord;
}

/** Live output of a running call (a shell command's terminal), for the log; not recorded chunk by chunk. */
export interface OutputChunk {
  call_id: string;
  tool: string;
  chunk: string;
}

/** A notification for the person at the machine: the log always shows it, the desktop also natively. */
export interface Notification {
  call_id: string;
  client: string;
  title: string;
  message: string;
  urgency: 'low' | 'normal' | 'critical';
}

/** A plugin's status changed (loaded, held back for the owner, failed, crashed…); its tools come as `tools`. */
export interface PluginStatusChange {
  name: string;
  status: PluginStatus;
  reason: string | null;
}

/** An imported MCP server's status, last error or tools changed, or it was removed (`removed`). */
export interface McpServerStatusChange {
  name: string;
  status: McpServerStatus | 'removed';
  last_error: string | null;
  restarts: number;
}

/** The in-process event bus: each event's listener arguments. */
export interface GatewayEvents {
  call: [CallEvent];
  tools: [ToolsChanged];
  /** A standing rule was added or removed (use counts change with calls, not here). */
  rules: [RuleChange];
  /** An approval asked for, answered (allowed/denied/cancelled) or expired; carries everything a popup shows. */
  approval: [ApprovalEvent];
  output: [OutputChunk];
  notify: [Notification];
  plugins: [PluginStatusChange];
  mcp_servers: [McpServerStatusChange];
  /** The gateway is stopping: long-lived streams should end so the port can close. */
  closing: [];
}

/** `GET /events`: Server-Sent Events by name, each `data` as parsed. */
export interface StreamEvents {
  /** The first event of every stream. */
  hello: { version: string };
  call: { phase: CallPhase; call: LiveCall };
  approval: ApprovalEvent;
  tools: ToolsChanged;
  rules: RuleChange;
  output: OutputChunk;
  notify: Notification;
  plugins: PluginStatusChange;
  mcp_servers: McpServerStatusChange;
  /** The last event of a stream that fell too far behind: reconnect and fetch what was missed from `catch_up`. */
  reset: { reason: 'behind'; message: string; catch_up: string };
}

import { EventEmitter } from 'node:events';
import type { CallRecord } from '../store/index.js';
import type { ApprovalEvent } from '../approvals/broker.js';
import type { RuleChange } from '../policy/rules.js';
import type { Notification } from '../tools/builtin/notify.js';

export type CallPhase = 'started' | 'succeeded' | 'failed' | 'denied' | 'pending' | 'cancelled';

export interface GatewayEvents {
  call: [{ phase: CallPhase; call: CallRecord }];
  tools: [{ reason: string; names: string[] }];
  /** A standing rule was added or removed (use counts change with calls, not here). */
  rules: [RuleChange];
  /** An approval asked for, answered (allowed/denied/cancelled) or expired; carries everything a popup shows. */
  approval: [ApprovalEvent];
  /** Live output of a running call (a shell command's terminal), for the log; not recorded chunk by chunk. */
  output: [{ call_id: string; tool: string; chunk: string }];
  /** A notification for the person at the machine (the desktop shows it natively; the log always shows it). */
  notify: [Notification];
  /** A plugin's status changed (loaded, held back for the owner, failed, crashed…); its tools come as `tools`. */
  plugins: [{ name: string; status: string; reason: string | null }];
  /** An imported MCP server's status, last error or tools changed, or it was removed; its tools come as `tools`. */
  mcp_servers: [{ name: string; status: string; last_error: string | null; restarts: number }];
  /** The gateway is stopping: long-lived streams should end so the port can close. */
  closing: [];
}

/** In-process fan-out of what happens, to SSE streams, the tray and popups. */
export class EventBus extends EventEmitter<GatewayEvents> {
  constructor() {
    super();
    // Every open dashboard tab holds a listener; the default limit of 10 would warn on an ordinary day.
    this.setMaxListeners(0);
  }
}

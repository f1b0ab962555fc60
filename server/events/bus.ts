import { EventEmitter } from 'node:events';
import type { CallRecord } from '../store/index.js';

export type CallPhase = 'started' | 'succeeded' | 'failed' | 'denied' | 'pending' | 'cancelled';

export interface GatewayEvents {
  call: [{ phase: CallPhase; call: CallRecord }];
  tools: [{ reason: string; names: string[] }];
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

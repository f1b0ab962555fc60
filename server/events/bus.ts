import { EventEmitter } from 'node:events';
import type { GatewayEvents } from '../contract/events.js';

// The events and their payloads are the wire contract's vocabulary (server/contract/events.ts).
export type { CallPhase } from '../contract/calls.js';
export type { GatewayEvents } from '../contract/events.js';

/** In-process fan-out of what happens, to SSE streams, the tray and popups. */
export class EventBus extends EventEmitter<GatewayEvents> {
  constructor() {
    super();
    // Every open dashboard tab holds a listener; the default limit of 10 would warn on an ordinary day.
    this.setMaxListeners(0);
  }
}

/**
 * The bus as a service that announces some of its events sees it: it may emit those, with their typed payloads,
 * and nothing else. The EventBus is one; tests pass it too.
 */
export interface Announcer<K extends keyof GatewayEvents> {
  emit<E extends K>(event: E, ...args: GatewayEvents[E]): boolean;
}

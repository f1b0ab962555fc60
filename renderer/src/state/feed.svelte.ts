import { createSubscriber } from 'svelte/reactivity';
import type { GatewayEvents } from '../lib/types';

export type FeedStatus = 'connecting' | 'live' | 'reconnecting';
type Handler<K extends keyof GatewayEvents> = (data: GatewayEvents[K]) => void;
/** Events that make a view reload: every one of that name (`true`), or those a filter accepts. */
export type ReloadTriggers = { [K in keyof GatewayEvents]?: true | ((data: GatewayEvents[K]) => boolean) };

const EVENT_NAMES = ['hello', 'call', 'approval', 'tools', 'rules', 'output', 'notify', 'plugins', 'mcp_servers'] as const satisfies readonly (keyof GatewayEvents)[];
const MAX_BACKOFF_MS = 10_000;

/**
 * The gateway's event stream. It connects only while something reads `status` (the app shell does, while it is
 * shown), reconnects with backoff when the gateway restarts, and tells listeners when it has reconnected so they
 * can fetch what they missed.
 */
export class GatewayFeed {
  #status = $state<FeedStatus>('connecting');
  #source: EventSource | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #backoff = 500;
  #handlers = new Map<string, Set<(data: never) => void>>();
  #reconnectListeners = new Set<{ catchUp: () => void; missing: () => boolean }>();
  #everConnected = false;
  #subscribe: () => void;

  constructor(private readonly url = '/events') {
    this.#subscribe = createSubscriber(() => {
      this.#open();
      return () => this.#close();
    });
  }

  get status(): FeedStatus {
    this.#subscribe();
    return this.#status;
  }

  on<K extends keyof GatewayEvents>(name: K, handler: Handler<K>): () => void {
    let set = this.#handlers.get(name);
    if (!set) this.#handlers.set(name, (set = new Set()));
    set.add(handler as (data: never) => void);
    return () => set.delete(handler as (data: never) => void);
  }

  /**
   * Runs `catchUp` whenever the stream comes back after a drop: events sent while it was down are lost, so what they
   * would have said must be fetched. The first connection is no such reason, as every listener fetches its state as
   * it starts; unless `missing()` says that fetch failed, when the first connection is the moment to try again.
   */
  onReconnect(catchUp: () => void, missing: () => boolean = () => false): () => void {
    const listener = { catchUp, missing };
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  /**
   * Calls `reload` when one of `triggers` arrives and after every reconnection (events sent while the stream was down
   * are lost, so what they would have said must be fetched). `settleMs` bounds how often, never how late: the first
   * event schedules one reload, at once when the last one ran `settleMs` ago or more and otherwise when it has, and
   * events until then join it; so a steady stream of events costs one reload per `settleMs` instead of putting it off
   * for as long as the stream lasts. Callers load as they start following: that load counts as the last reload.
   * Returns the unsubscribe.
   */
  follow(reload: () => void, triggers: ReloadTriggers, settleMs = 0): () => void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = performance.now();
    const run = () => {
      timer = undefined;
      last = performance.now();
      reload();
    };
    const soon = () => {
      if (timer === undefined) timer = setTimeout(run, Math.max(0, last + settleMs - performance.now()));
    };
    const offs = Object.entries(triggers).map(([name, accepts]) =>
      this.on(name as keyof GatewayEvents, (data) => {
        if (accepts === true || (accepts as (data: unknown) => boolean)(data)) soon();
      }),
    );
    offs.push(this.onReconnect(soon));
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
  }

  #open(): void {
    clearTimeout(this.#retry);
    const source = new EventSource(this.url);
    this.#source = source;
    source.addEventListener('open', () => {
      this.#status = 'live';
      this.#backoff = 500;
      const reconnected = this.#everConnected;
      this.#everConnected = true;
      for (const { catchUp, missing } of this.#reconnectListeners) if (reconnected || missing()) catchUp();
    });
    source.addEventListener('error', () => {
      if (this.#source !== source) return;
      this.#status = 'reconnecting';
      // The browser retries a dropped stream by itself, but gives up for good on an HTTP error (a gateway that
      // came back and answered 401 or 503 once); then we start again ourselves, with backoff.
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        this.#retry = setTimeout(() => this.#open(), this.#backoff);
        this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
      }
    });
    // The gateway ends a stream that fell too far behind (a tab that was busy for long) with `reset`: reconnect
    // at once, and the reconnect listeners fetch what was missed.
    source.addEventListener('reset', () => {
      if (this.#source !== source) return;
      source.close();
      this.#status = 'reconnecting';
      this.#open();
    });
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (event) => {
        const handlers = this.#handlers.get(name);
        if (!handlers || handlers.size === 0) return;
        let data: never;
        try {
          data = JSON.parse((event as MessageEvent<string>).data) as never;
        } catch {
          return;
        }
        for (const handler of handlers) handler(data);
      });
    }
  }

  #close(): void {
    clearTimeout(this.#retry);
    this.#source?.close();
    this.#source = undefined;
    this.#status = 'connecting';
  }
}

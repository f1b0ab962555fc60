import { fileURLToPath } from 'node:url';
import { EventSource as SpecEventSource, type EventSourceInit } from 'eventsource';
import { flushSync } from 'svelte';
import { vi } from 'vitest';
import type { DashboardGateway, LlmReply, LlmRequest, LlmScript } from '../../helpers/dashboard-gateway-types.js';
import { until } from '../../helpers/wait.js';

export { until };
export type { DashboardGateway, LlmReply, LlmRequest, LlmScript };

/**
 * The dashboard's page as its state classes see it, against a real gateway: `fetch('/tools')` and `new
 * EventSource('/events')` reach the gateway as same-origin requests carrying the owner's session cookie, and a state
 * change carries the page's Origin, as a browser sends them. EventSource is the WHATWG-following implementation
 * over fetch (Node has none); animation frames are a 16 ms timer, as in a page that is shown.
 */
export interface Dashboard {
  readonly gateway: DashboardGateway;
  /** A call as an assistant makes it: POST /tools/<tool>/execute with the default client's token. */
  execute(tool: string, args: unknown, headers?: Record<string, string>): Promise<Response>;
  /**
   * Cuts the page's open event streams as a network drop would (the gateway keeps running): EventSource retries by
   * itself after the gateway's `retry` delay, and whatever happened meanwhile reached the page by no event.
   */
  dropStreams(): void;
  /**
   * Holds the answers to the page's requests whose path starts with `path` for `ms` more (a slow network or a busy
   * gateway), so a later request can be answered first; until the returned function is called.
   */
  slowDown(path: string, ms: number): () => void;
  /** Ends the page's stand-ins and stops the gateway. */
  close(): Promise<void>;
}

// The gateway's side is typed against the server and checked with the root tsconfig; imported by path at run time
// so the browser-typed program of these tests stays free of the server's Node modules.
const GATEWAY_HELPER = fileURLToPath(new URL('../../helpers/dashboard-gateway.ts', import.meta.url));

const nodeFetch = globalThis.fetch;

/** A page on a fresh gateway; `overrides` are its configuration's, `llm` scripts the model it talks to. */
export async function openDashboard(overrides: Record<string, unknown> = {}, options: { llm?: LlmScript } = {}): Promise<Dashboard> {
  const { startDashboardGateway } = (await import(/* @vite-ignore */ GATEWAY_HELPER)) as {
    startDashboardGateway(overrides: Record<string, unknown>, options: { llm?: LlmScript }): Promise<DashboardGateway>;
  };
  const gateway = await startDashboardGateway(overrides, options);
  const { url: origin, ownerCookie: cookie } = gateway;

  // Only the page's own relative paths are the page's requests; absolute URLs (the tests' own calls) go out as given.
  const pageFetch = (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    if (typeof input !== 'string' || !input.startsWith('/')) return nodeFetch(input, init);
    const headers = new Headers(init.headers);
    if (init.credentials !== 'omit') headers.set('cookie', cookie);
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') headers.set('origin', origin);
    // A streamed body (a File) needs half duplex under Node's fetch; browsers send it whole.
    return nodeFetch(new URL(input, origin), { ...init, headers, ...(init.body instanceof Blob && { duplex: 'half' }) } as RequestInit);
  };

  const slow = new Map<string, number>();
  const delayedFetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const response = await pageFetch(input, init);
    const path = typeof input === 'string' ? input : '';
    const delay = [...slow].find(([prefix]) => path.startsWith(prefix))?.[1];
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    return response;
  };

  const connections = new Set<AbortController>();
  class PageEventSource extends SpecEventSource {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(new URL(url, origin), {
        ...init,
        fetch: (target, request) => {
          const connection = new AbortController();
          connections.add(connection);
          const signal = request.signal ? AbortSignal.any([request.signal, connection.signal]) : connection.signal;
          return nodeFetch(target, { ...request, signal, headers: { ...request.headers, cookie } });
        },
      });
    }
  }

  vi.stubGlobal('fetch', delayedFetch);
  vi.stubGlobal('EventSource', PageEventSource);
  vi.stubGlobal('requestAnimationFrame', (run: FrameRequestCallback) => setTimeout(() => run(performance.now()), 16));
  vi.stubGlobal('cancelAnimationFrame', (frame: ReturnType<typeof setTimeout>) => clearTimeout(frame));

  return {
    gateway,
    execute: (tool, args, headers = {}) => gateway.api(`/tools/${tool}/execute`, { method: 'POST', json: args, headers }),
    slowDown(path, ms) {
      slow.set(path, ms);
      return () => slow.delete(path);
    },
    dropStreams() {
      for (const connection of connections) connection.abort(new TypeError('network connection lost'));
      connections.clear();
    },
    async close() {
      // A test that failed half way left its states mounted: their streams end before the page's stand-ins go.
      for (const unmount of roots) unmount();
      roots.clear();
      vi.unstubAllGlobals();
      await gateway.close();
    },
  };
}

/**
 * Creates a state inside an effect root, as a component holds it, with `read` as the template's reads (reading the
 * feed's `status` is what connects the event stream); `unmount` ends the root and its effects.
 */
export function mount<T>(create: () => T, read?: (state: T) => void): { state: T; unmount: () => void } {
  let state!: T;
  const end = $effect.root(() => {
    state = create();
    if (read) $effect(() => read(state));
  });
  const unmount = () => {
    roots.delete(unmount);
    end();
  };
  roots.add(unmount);
  flushSync();
  return { state, unmount };
}

/** Effect roots not yet ended. */
const roots = new Set<() => void>();

/** Lets pending promise callbacks and effects run. */
export async function settle(ms = 0): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  flushSync();
}

import type { Response } from 'express';
import type { ServerResponse } from 'node:http';
import { approvalForClient, reasonForClient } from '../approvals/client-view.js';
import type { StreamEvents } from '../contract/events.js';
import type { EventBus, GatewayEvents } from '../events/bus.js';
import { clientOfToolsReason } from '../policy/access.js';
import { ruleForClient } from '../policy/rules.js';
import { HIDDEN_MEMORY_CALL, MEMORY_TOOLS, SEES_EVERYTHING, type CallView } from './call-privacy.js';
import type { Identity } from './identity.js';
import { liveCall } from './live-call.js';

/** The bus events GET /events carries, each under its own SSE event name. */
export const STREAMED = ['call', 'approval', 'tools', 'rules', 'output', 'notify', 'plugins', 'mcp_servers'] as const satisfies readonly (keyof GatewayEvents)[];

export interface StreamLimits {
  /**
   * Bytes a viewer may have waiting in this process (written to its response, not yet taken by the kernel) before
   * it is ended. The kernel's socket buffers hold a few megabytes more before anything waits here.
   */
  maxQueuedBytes: number;
  /** Shortest time between two writes to the viewers: events that come faster go out together. */
  flushGapMs: number;
  /** How long an ended laggard gets to take its last bytes (the reset event among them) before it is cut off. */
  lingerMs: number;
  /** Comments that keep proxies and idle timers from closing a quiet stream; also when revoked tokens are noticed. */
  heartbeatMs: number;
  /**
   * Streams one client may hold open at once (the owner: any number). Security: every stream costs a write per
   * batch, so thousands opened by one client made each call's event cost thousands of writes, for every caller.
   */
  maxPerClient: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxQueuedBytes: 1024 * 1024,
  // At most 10 writes a second per viewer: the dashboard redraws its list at most every 120 ms anyway, and on
  // loopback each write is a system call that costs the gateway tens of microseconds per viewer.
  flushGapMs: 100,
  lingerMs: 5000,
  heartbeatMs: 15_000,
  maxPerClient: 32,
};

export interface StreamStats {
  viewers: number;
  /** Viewers ended for falling behind whose connection is not closed yet. */
  lingering: number;
  /** The most bytes any viewer (open or lingering) has waiting in this process right now. */
  queuedBytes: number;
  /** The most bytes any viewer ever had waiting just after a write: the bound, as it held. */
  peakQueuedBytes: number;
  /** Viewers ended because they fell too far behind. */
  endedBehind: number;
}

interface Viewer {
  res: ServerResponse;
  /** Checked at every heartbeat: true ends the stream (its token was revoked meanwhile). */
  expired: () => boolean;
  /** What this viewer may read of calls (asked at each batch about calls: the owner may change it meanwhile). */
  view: () => CallView;
  /** The client reading this stream; undefined for the owner. */
  client: string | undefined;
}

/** The rule of a call that runs files a client wrote (policy/provenance.ts): its reason names that client. */
const PROVENANCE_RULE = 'provenance:client-written';

/** Who reads a stream that does not say: a client no event names (it gets no event meant for a client or the owner). */
const UNKNOWN_CLIENT = Object.freeze({ kind: 'client', name: '' }) as Identity;

/** One event of a batch. */
interface Published {
  chunk: Buffer;
  /**
   * The client whose call the event is about (a call, an approval, live output, a notification); null when that
   * client is no longer known (live output after its call ended). A viewer limited to its own calls gets only those
   * about itself.
   */
  about?: string | null;
  /** A memory call's event as a viewer limited to its own memories gets another client's: its preview left out. */
  hiddenMemory?: Buffer;
  /** Who may read the event at all, whatever its view of calls: when set, the owner and that client alone. */
  audience?: string;
  /** The event as the client `viewer` reads it, when that differs from what the owner reads (an approval card). */
  forClient?: (viewer: string) => Buffer;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');
/** Viewers written to in one go before the event loop gets a turn. */
const FLUSH_SLICE = 25;
const RESET = Buffer.from(
  `event: reset\ndata: ${JSON.stringify({
    reason: 'behind',
    message: 'This stream fell too far behind and was ended. Reconnect, and fetch what you missed from GET /calls.',
    catch_up: '/calls',
  } satisfies StreamEvents['reset'])}\n\n`,
);

/**
 * The fan-out of bus events to every open GET /events stream.
 *
 * Each event is serialised once, whatever the number of viewers, and the `call` event carries only what a live row
 * shows (see live-call.ts). Events are gathered and written to all viewers together, at most once per flushGapMs,
 * so a burst of calls costs each viewer one write instead of one per event; with many viewers the writes are spread
 * over a few turns of the event loop, so calls are not kept waiting behind them. A viewer's unsent bytes are bounded:
 * one that does not read (a stalled tab, a stuck client) gets a final `reset` event and is ended instead of
 * growing the gateway's memory. The bus is listened to only while a viewer is open, so with none the executor
 * builds no events at all.
 */
export class EventStreams {
  readonly #viewers = new Set<Viewer>();
  readonly #lingering = new Set<ServerResponse>();
  #batch: Published[] = [];
  #batchBytes = 0;
  #flushTimer: NodeJS.Timeout | undefined;
  #flushQueued: NodeJS.Immediate | undefined;
  /** A batch on its way to the viewers, a slice at a time. */
  #writing: { chunkFor: (viewer: Viewer) => Buffer; viewers: Viewer[]; next: number; resume: NodeJS.Immediate | undefined } | undefined;
  #lastFlush = -Infinity;
  #heartbeat: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #peakQueued = 0;
  #endedBehind = 0;
  readonly limits: StreamLimits;

  constructor(
    private readonly events: EventBus,
    limits: Partial<StreamLimits> = {},
    /** The client of a call still under way, for its live output (whose event does not name it). */
    private readonly clientOfCall: (callId: string) => string | undefined = () => undefined,
  ) {
    this.limits = { ...DEFAULT_STREAM_LIMITS, ...limits };
  }

  /**
   * Streams every event from the next batch on to `res`, whose headers are written. Returns the function that ends
   * the stream.
   * The stream leaves by itself when its connection closes. `view` says what the viewer may read of calls: a client
   * limited to its own calls gets no event about another client's; one limited to its own memories gets other
   * clients' memory calls without their arguments preview. `who` (by default the identity the identify middleware
   * put on `res`) says whether it is the owner: a client gets no rule, no other client's tool set, and its approval
   * cards without other clients named.
   */
  add(
    res: ServerResponse,
    expired: () => boolean,
    view: () => CallView = () => SEES_EVERYTHING,
    who: Identity = (res as Partial<Response>).locals?.identity ?? UNKNOWN_CLIENT,
  ): () => void {
    const viewer: Viewer = { res, expired, view, client: who.kind === 'owner' ? undefined : who.name };
    this.#viewers.add(viewer);
    if (!this.#unsubscribe) this.#subscribe();
    res.once('close', () => this.#remove(viewer));
    return () => this.#end(viewer);
  }

  /** How many streams `client` holds open now. */
  openBy(client: string): number {
    let open = 0;
    for (const viewer of this.#viewers) if (viewer.client === client) open++;
    return open;
  }

  stats(): StreamStats {
    let queued = 0;
    for (const { res } of this.#viewers) queued = Math.max(queued, res.writableLength);
    for (const res of this.#lingering) queued = Math.max(queued, res.writableLength);
    return {
      viewers: this.#viewers.size,
      lingering: this.#lingering.size,
      queuedBytes: queued,
      peakQueuedBytes: this.#peakQueued,
      endedBehind: this.#endedBehind,
    };
  }

  #subscribe(): void {
    const offs = STREAMED.map((name) => {
      const listener = (data: GatewayEvents[typeof name][0]) => this.#publish(name, data);
      this.events.on(name, listener);
      return () => this.events.off(name, listener);
    });
    const onClosing = () => {
      // What was published goes out before the streams end.
      clearImmediate(this.#writing?.resume);
      this.#writeSome(true);
      this.#flush();
      this.#writeSome(true);
      for (const viewer of [...this.#viewers]) this.#end(viewer);
    };
    this.events.on('closing', onClosing);
    offs.push(() => this.events.off('closing', onClosing));
    this.#heartbeat = setInterval(() => this.#beat(), this.limits.heartbeatMs);
    this.#heartbeat.unref();
    this.#unsubscribe = () => {
      for (const off of offs) off();
      clearInterval(this.#heartbeat);
    };
  }

  #publish(name: (typeof STREAMED)[number], data: unknown): void {
    // Only what goes over the wire gets smaller: in-process listeners keep the whole record.
    const payload = name === 'call' ? callEvent(data as GatewayEvents['call'][0]) : data;
    const chunk = sse(name, payload);
    const published: Published = { chunk };
    if (name === 'call') {
      const { call } = data as GatewayEvents['call'][0];
      published.about = call.client;
      if (MEMORY_TOOLS.has(call.tool)) {
        published.hiddenMemory = sse(name, { ...(payload as object), call: { ...liveCall(call), preview: '', hidden: HIDDEN_MEMORY_CALL } });
      } else if (call.rule === PROVENANCE_RULE && call.reason !== null) {
        // Security: the reason names the clients that wrote files the command runs, as its approval card does.
        const { reason } = call;
        published.forClient = (viewer) => sse(name, { ...(payload as object), call: liveCall({ ...call, reason: reasonForClient(reason, viewer) }) });
      }
    } else if (name === 'approval') {
      const event = data as GatewayEvents['approval'][0];
      published.about = event.approval.client;
      // Security: a memory call's card holds the memory text, as its call does; hidden alike from a viewer limited to
      // its own memories.
      if (MEMORY_TOOLS.has(event.approval.tool)) {
        published.hiddenMemory = sse(name, { ...event, approval: { ...event.approval, arguments: null, hidden: HIDDEN_MEMORY_CALL } });
      }
      // Security: the card names the clients that wrote files the command runs; a client reads only itself named.
      if (event.approval.provenance.length > 0) published.forClient = (viewer) => sse(name, { ...event, approval: approvalForClient(event.approval, viewer) });
    } else if (name === 'rules') {
      // Security: a client reads the ledger without patterns and notes, as on GET /rules (ruleForClient).
      const event = data as GatewayEvents['rules'][0];
      published.forClient = () => sse(name, { ...event, rule: ruleForClient(event.rule) });
    } else if (name === 'tools') {
      // Security: a change to one client's tool set names that client and its tools; other clients are told nothing
      // of who else is here or what it may use.
      const client = clientOfToolsReason((data as GatewayEvents['tools'][0]).reason);
      if (client !== undefined) published.audience = client;
    } else if (name === 'output') published.about = this.clientOfCall((data as GatewayEvents['output'][0]).call_id) ?? null;
    else if (name === 'notify') published.about = (data as GatewayEvents['notify'][0]).client;
    this.#batch.push(published);
    this.#batchBytes += chunk.length;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#flushTimer || this.#flushQueued || this.#writing) return;
    const wait = this.#lastFlush + this.limits.flushGapMs - performance.now();
    // After a quiet spell the event goes out at once, with whatever else this turn of the event loop publishes.
    if (wait <= 0) this.#flushQueued = setImmediate(() => this.#flush());
    else this.#flushTimer = setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    clearTimeout(this.#flushTimer);
    clearImmediate(this.#flushQueued);
    this.#flushTimer = this.#flushQueued = undefined;
    if (this.#batch.length === 0 || this.#writing) return;
    this.#lastFlush = performance.now();
    // One buffer for everyone: every viewer's queue holds a reference to it, not a copy.
    const batch = this.#batch;
    const chunk = batch.length === 1 ? batch[0]!.chunk : Buffer.concat(batch.map((p) => p.chunk), this.#batchBytes);
    this.#batch = [];
    this.#batchBytes = 0;
    // The viewers open now: one that joins while this batch goes out did not exist when its events happened.
    this.#writing = { chunkFor: chunksFor(batch, chunk), viewers: [...this.#viewers], next: 0, resume: undefined };
    this.#writeSome();
  }

  /**
   * Writes the batch to the next FLUSH_SLICE viewers, then lets the event loop run before the next ones: a write is
   * a system call of some tens of microseconds, and calls must not wait behind two hundred of them.
   */
  #writeSome(all = false): void {
    const job = this.#writing;
    if (!job) return;
    const end = all ? job.viewers.length : Math.min(job.viewers.length, job.next + FLUSH_SLICE);
    for (; job.next < end; job.next++) {
      const viewer = job.viewers[job.next]!;
      if (this.#viewers.has(viewer)) this.#write(viewer, job.chunkFor(viewer));
    }
    if (job.next < job.viewers.length) {
      job.resume = setImmediate(() => this.#writeSome());
      return;
    }
    this.#writing = undefined;
    if (this.#batch.length > 0) this.#schedule();
  }

  #write(viewer: Viewer, chunk: Buffer): void {
    const { res } = viewer;
    // Everything in the batch was about other clients' calls.
    if (chunk.length === 0) return;
    // A viewer that has not taken what it was sent before is ended rather than sent more: what waits for it is
    // bounded by maxQueuedBytes plus one batch.
    if (res.writableLength > this.limits.maxQueuedBytes) {
      this.#behind(viewer);
      return;
    }
    res.write(chunk);
    const queued = res.writableLength;
    if (queued > this.#peakQueued) this.#peakQueued = queued;
  }

  #beat(): void {
    for (const viewer of [...this.#viewers]) {
      if (viewer.expired()) this.#end(viewer);
      else this.#write(viewer, KEEP_ALIVE);
    }
  }

  /** Ends a viewer that fell behind: it is told to reconnect and catch up from GET /calls. */
  #behind(viewer: Viewer): void {
    this.#endedBehind++;
    this.#end(viewer, RESET);
  }

  /**
   * Ends a stream after what it was sent (and `last`). A reader that takes nothing would hold its connection and
   * the bytes waiting for it forever: after lingerMs it is cut off.
   */
  #end(viewer: Viewer, last?: Buffer): void {
    this.#remove(viewer);
    const { res } = viewer;
    if (res.writableEnded || res.destroyed) return;
    this.#lingering.add(res);
    if (last) res.end(last);
    else res.end();
    const cutOff = setTimeout(() => res.destroy(), this.limits.lingerMs);
    cutOff.unref();
    res.once('close', () => {
      clearTimeout(cutOff);
      this.#lingering.delete(res);
    });
  }

  #remove(viewer: Viewer): void {
    if (!this.#viewers.delete(viewer) || this.#viewers.size > 0) return;
    // The last viewer left: stop listening, so calls build no events for nobody.
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearTimeout(this.#flushTimer);
    clearImmediate(this.#flushQueued);
    clearImmediate(this.#writing?.resume);
    this.#flushTimer = this.#flushQueued = this.#writing = undefined;
    this.#batch = [];
    this.#batchBytes = 0;
  }
}

function callEvent({ phase, call }: GatewayEvents['call'][0]): StreamEvents['call'] {
  return { phase, call: liveCall(call) };
}

const sse = (name: string, payload: unknown) => Buffer.from(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);

/**
 * Which bytes of a batch each viewer gets: the shared chunk, unless the batch holds an event the viewer may not read
 * whole. A viewer limited to its own calls gets the batch without the events about other clients' calls (Security:
 * their previews, approvals and live output show what those clients sent and got back); one limited to its own
 * memories gets other clients' memory calls in their hidden form. A client gets no event meant for the owner or for
 * another client (`audience`), and the client's form of the events that have one (`forClient`). The owner gets
 * everything whole. Each such form of the batch is built once, for every viewer with the same view.
 */
function chunksFor(batch: readonly Published[], shared: Buffer): (viewer: Viewer) => Buffer {
  if (!batch.some((p) => p.about !== undefined || p.audience !== undefined || p.forClient !== undefined)) return () => shared;
  const forClients = batch.some((p) => p.audience !== undefined || p.forClient !== undefined);
  // Only then does a client's form of the batch depend on its name, not on its view of calls alone.
  const personal = batch.some((p) => typeof p.audience === 'string' || p.forClient !== undefined);
  const forms = new Map<string, Buffer>();
  return (viewer) => {
    const { client } = viewer;
    if (client === undefined) return shared;
    const view = viewer.view();
    if (!forClients && view.calls === undefined && view.memories === undefined) return shared;
    const kept = (p: Published) =>
      (p.about === undefined || view.calls === undefined || p.about === view.calls) && (p.audience === undefined || p.audience === client);
    const hidden = (p: Published) => p.hiddenMemory !== undefined && view.memories !== undefined && p.about !== view.memories;
    if (batch.every((p) => kept(p) && !hidden(p) && p.forClient === undefined)) return shared;
    const key = `${personal ? client : ''}\n${view.calls ?? ''}\n${view.memories ?? ''}`;
    let chunk = forms.get(key);
    if (!chunk) {
      chunk = Buffer.concat(batch.filter(kept).map((p) => (hidden(p) ? p.hiddenMemory! : p.forClient ? p.forClient(client) : p.chunk)));
      forms.set(key, chunk);
    }
    return chunk;
  };
}

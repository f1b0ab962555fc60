import type { TestGateway } from './gateway.js';

/** One Server-Sent Event as read from GET /events. */
export interface SseEvent {
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** Reads GET /events with fetch and a stream reader, as a dashboard would. */
export class EventStream {
  readonly events: SseEvent[] = [];
  #waiters: { match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  #done: Promise<void>;

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.#done = this.#pump();
  }

  static async open(tg: TestGateway): Promise<EventStream> {
    const controller = new AbortController();
    const response = await tg.api('/events', { signal: controller.signal });
    const stream = new EventStream(response, controller);
    // The gateway subscribes before it writes "hello": after it, nothing can be missed.
    await stream.next((e) => e.event === 'hello');
    return stream;
  }

  /** GET /events as the signed-in owner (the dashboard's session cookie, no token), as the dashboard reads it. */
  static async openAsOwner(tg: TestGateway): Promise<EventStream> {
    const { cookie } = await tg.ownerHeaders();
    return EventStream.open({ ...tg, api: (path, init = {}) => fetch(`${tg.url}${path}`, { ...init, headers: { ...(init.headers as object), cookie: cookie! } }) });
  }

  async #pump(): Promise<void> {
    const reader = this.response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length === 0) continue; // comments, retry hints
          const parsed: SseEvent = { event, data: JSON.parse(data.join('\n')) };
          this.events.push(parsed);
          for (const waiter of [...this.#waiters]) {
            if (waiter.match(parsed)) {
              this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
              waiter.resolve(parsed);
            }
          }
        }
      }
    } catch {
      // aborted by close()
    }
  }

  /** The first event (already received or still to come) that matches. */
  next(match: (e: SseEvent) => boolean, timeoutMs = 15_000): Promise<SseEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching event within the time limit')), timeoutMs);
      this.#waiters.push({
        match,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.#done;
  }
}

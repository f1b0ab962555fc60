import type { ChildHandle } from '../process/index.js';
import type { PluginFetchInit } from '../plugin-api.js';
import { describeBytes, MAX_MESSAGE_BYTES, readLines } from '../util/lines.js';
import type { HostLaunch } from './launch.js';
import type { DeclaredTool, ToChild, ToParent } from './protocol.js';

/** How long a plugin may take to load its entry and name its tools. */
const LOAD_TIMEOUT_MS = 15_000;
/** After a call is cancelled (timeout, caller gone), how long its plugin gets to notice before its process is killed. */
const CANCEL_GRACE_MS = 1_000;
/**
 * When more than this waits unread in what the gateway writes to a plugin (answers, fetched bodies) and the plugin
 * reads none of it for UNREAD_GRACE_MS, it is ended: one that stops reading cannot make the gateway hold its answers.
 * What the gateway reads from a plugin is capped per message while it is read (MAX_MESSAGE_BYTES): a result, a log
 * line or a request is one.
 */
const MAX_UNREAD_BYTES = 64 * 1024 * 1024;
const UNREAD_GRACE_MS = 10_000;
/**
 * Requests a plugin may have going at once through the gateway, counted until their answer is on its pipe; more are
 * refused until some are answered. With the size cap of a response, this bounds what its requests hold.
 */
const MAX_FETCHES_IN_FLIGHT = 8;

export class PluginCallError extends Error {
  constructor(
    readonly errorName: 'PLUGIN_ERROR' | 'PLUGIN_CRASHED' | 'PLUGIN_UNAVAILABLE',
    message: string,
  ) {
    super(message);
  }
}

export type LoadOutcome = Extract<ToParent, { type: 'loaded' | 'load-failed' }> | { type: 'exited'; reason: string };

export interface ChannelDeps {
  /** Outgoing HTTP for the plugin, with the URL policy and its hosts applied; throws with a reason. */
  fetch(url: string, init: PluginFetchInit): Promise<{ status: number; url: string; headers: Record<string, string>; body: Buffer }>;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
  /** The process went (`kill` false) or must go: it flooded its pipe, stopped reading, or ignored a cancel. */
  ended(child: ChildHandle, reason: string, kill: boolean): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The request/answer protocol with a plugin's current process, on its file descriptor 3 (its standard output is
 * only a log, so nothing it prints can break into the protocol): its load, its calls and their cancels, and the
 * HTTP requests it makes through the gateway. Everything read from it has a cap that applies while reading, and what
 * waits unread for it is bounded too.
 */
export class PluginChannel {
  #child: ChildHandle | undefined;
  #calls = new Map<number, Pending>();
  /** Calls cancelled but not yet answered: the process is still busy with them. */
  readonly #abandoned = new Set<number>();
  #nextId = 1;
  #loaded: ((outcome: LoadOutcome) => void) | undefined;
  /** Requests of the current process whose answer is not on its pipe yet. */
  #fetching = 0;
  /** Messages the current process has taken off its pipe (read far enough for the next to go out). */
  #delivered = 0;
  /** Set while more than MAX_UNREAD_BYTES wait unread: ends the process if it reads nothing meanwhile. */
  #unreadTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly deps: ChannelDeps,
  ) {}

  /** The process spoken to, if one runs. */
  get child(): ChildHandle | undefined {
    return this.#child;
  }

  /** Speaks to `child` from now on. */
  attach(child: ChildHandle): void {
    this.#child = child;
    this.#fetching = 0;
    this.#delivered = 0;
    this.#listen(child);
  }

  /** Stops speaking to the current process, and returns it. */
  detach(): ChildHandle | undefined {
    const child = this.#child;
    this.#child = undefined;
    clearTimeout(this.#unreadTimer);
    this.#unreadTimer = undefined;
    return child;
  }

  /** `child` is gone: what it was busy with and a load under way end with it. False if it was not the current one. */
  lost(child: ChildHandle, reason: string): boolean {
    if (this.#child !== child) return false;
    this.detach();
    this.#abandoned.clear();
    this.#loaded?.({ type: 'exited', reason });
    return true;
  }

  /** Asks the process to load the plugin's entry; resolves with its tools, why not, or that it did not answer in time. */
  load(launch: Pick<HostLaunch, 'entryUrl' | 'name' | 'config'>): Promise<LoadOutcome> {
    return new Promise<LoadOutcome>((resolve) => {
      const timer = setTimeout(() => resolve({ type: 'exited', reason: `it did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s` }), LOAD_TIMEOUT_MS);
      this.#loaded = (message) => {
        clearTimeout(timer);
        this.#loaded = undefined;
        resolve(message);
      };
      this.#send({ type: 'load', entry: launch.entryUrl, name: launch.name, config: launch.config });
    });
  }

  /** Runs one tool call; rejects at once when the signal fires, and ends the process if the plugin ignores it. */
  call(tool: string, args: unknown, context: { callId: string; client: string; signal: AbortSignal }): Promise<unknown> {
    if (!this.#child) {
      return Promise.reject(new PluginCallError('PLUGIN_UNAVAILABLE', `The plugin "${this.name}" is restarting after a crash; try again in a few seconds.`));
    }
    const id = this.#nextId++;
    const { signal } = context;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#calls.delete(id);
        this.#send({ type: 'cancel', id });
        reject(signal.reason instanceof Error ? signal.reason : new Error('the call was cancelled'));
        // A plugin stuck in a loop cannot even read the cancel: its process goes, and comes back fresh.
        const child = this.#child;
        this.#abandoned.add(id);
        setTimeout(() => {
          if (child && this.#child === child && this.#abandoned.has(id)) this.deps.ended(child, 'a cancelled call did not stop', true);
        }, CANCEL_GRACE_MS).unref();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#calls.set(id, {
        resolve: (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
        reject: (error) => (signal.removeEventListener('abort', onAbort), reject(error)),
      });
      this.#send({ type: 'call', id, tool, args, callId: context.callId, client: context.client });
    });
  }

  /** Ends every call waiting for an answer with this error. */
  failAll(name: PluginCallError['errorName'], message: string): void {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const pending of calls) pending.reject(new PluginCallError(name, message));
  }

  #listen(child: ChildHandle): void {
    readLines(child.stdout, {
      maxLineBytes: MAX_MESSAGE_BYTES,
      onLine: (line) => {
        if (this.#child !== child || line === '') return;
        let message: ToParent;
        try {
          message = JSON.parse(line) as ToParent;
        } catch {
          return this.deps.log('warn', `wrote a line that is not a protocol message: ${line.slice(0, 200)}`);
        }
        this.#receive(child, message);
      },
      // Security: a message that never ends is cut off, not buffered until the gateway runs out of memory.
      onOverflow: (why) => this.deps.ended(child, `${why} on its protocol pipe, so Pincer ended it`, true),
    });
    void child.exited.then(({ exitCode, signal }) => {
      if (this.#child !== child) return;
      const tail = child.stderr().trim().split('\n').slice(-3).join(' | ');
      const reason = `its process ended (${signal ?? `exit code ${exitCode}`})${tail ? `: ${tail.slice(-600)}` : ''}`;
      this.deps.ended(child, reason, false);
    });
  }

  #receive(child: ChildHandle, message: ToParent): void {
    switch (message.type) {
      case 'loaded':
      case 'load-failed':
        this.#loaded?.(message);
        return;
      case 'result':
      case 'error': {
        this.#abandoned.delete(message.id);
        const pending = this.#calls.get(message.id);
        this.#calls.delete(message.id);
        if (message.type === 'result') pending?.resolve(message.value);
        else pending?.reject(new PluginCallError('PLUGIN_ERROR', message.message));
        return;
      }
      case 'log':
        this.deps.log(message.level, message.message);
        return;
      case 'fetch':
        return this.#fetch(child, message);
    }
  }

  /** One request of the plugin's, made by the gateway; the answer goes to the process that asked, if it still runs. */
  #fetch(child: ChildHandle, message: Extract<ToParent, { type: 'fetch' }>): void {
    // Security: each request holds its body in the gateway until it is answered; their number is bounded.
    if (this.#fetching >= MAX_FETCHES_IN_FLIGHT) {
      return this.#send({ type: 'fetch-failed', id: message.id, message: `too many requests at once (at most ${MAX_FETCHES_IN_FLIGHT}); wait for some to finish` }, child);
    }
    this.#fetching += 1;
    const done = () => {
      if (this.#child === child) this.#fetching -= 1;
    };
    void this.deps.fetch(message.url, message.init).then(
      (r) => this.#send({ type: 'fetched', id: message.id, status: r.status, url: r.url, headers: r.headers, body: r.body.toString('base64') }, child, done),
      (error: Error) => this.#send({ type: 'fetch-failed', id: message.id, message: error.message }, child, done),
    );
  }

  /**
   * Writes to the current process (or to `to`, if that is still the current one: an answer to a request it made);
   * `written` runs once the message is on the pipe, or will never be.
   */
  #send(message: ToChild, to: ChildHandle | undefined = this.#child, written?: () => void): void {
    const child = this.#child;
    if (!child || to !== child || child.stdin.destroyed) return written?.();
    child.stdin.write(`${JSON.stringify(message)}\n`, () => {
      if (this.#child === child) this.#delivered += 1;
      written?.();
    });
    if (child.stdin.writableLength > MAX_UNREAD_BYTES) this.#watchUnread(child);
  }

  /**
   * Security: a plugin that stops reading (its event loop blocked) must not make the gateway hold what it sends it.
   * One that reads slowly (a busy machine) is left alone: it is ended only when none of it was read for a while.
   */
  #watchUnread(child: ChildHandle): void {
    if (this.#unreadTimer) return;
    const delivered = this.#delivered;
    this.#unreadTimer = setTimeout(() => {
      this.#unreadTimer = undefined;
      if (this.#child !== child || child.stdin.writableLength <= MAX_UNREAD_BYTES) return;
      if (this.#delivered !== delivered) return this.#watchUnread(child);
      const why = `it stopped reading what Pincer sends it (over ${describeBytes(MAX_UNREAD_BYTES)} waiting, none of it read for ${UNREAD_GRACE_MS / 1000} s), so Pincer ended it`;
      this.deps.ended(child, why, true);
    }, UNREAD_GRACE_MS);
    this.#unreadTimer.unref();
  }
}

import { randomUUID } from 'node:crypto';
import type { McpIdentity } from './server.js';

/** The Tasks extension's key, in client capabilities (per request) and in the server's own capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How long a task is kept from its creation (its result included) unless the gateway is told otherwise. */
export const DEFAULT_TASK_TTL_MS = 60 * 60_000;
/** How often a client is asked to poll a task. */
const POLL_INTERVAL_MS = 2_000;
/** Tasks one identity may hold at once; past that, the oldest finished ones go first. */
const MAX_TASKS_PER_IDENTITY = 256;

export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

interface Task {
  readonly id: string;
  readonly identity: McpIdentity;
  status: TaskStatus;
  statusMessage: string;
  readonly createdAt: number;
  lastUpdatedAt: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  /** Stops the work (the call, or its pending approval) when the task is cancelled or expires. */
  readonly abort: AbortController;
  readonly expiry: NodeJS.Timeout;
}

/** A task as the extension's messages carry it (CreateTaskResult and tasks/get, without `resultType`). */
export type TaskView = Record<string, unknown> & { taskId: string; status: TaskStatus };

/**
 * The tasks of the stateless protocol: a `tools/call` that waits for the owner becomes a task the client polls.
 * Without sessions, a task is bound to the identity (client token, or the owner) that started it and to a time limit.
 * Security: another token's poll, cancel or guess of an id is answered as if the task did not exist, so a task id
 * seen in a log or a shared screen leads to nothing; a task past its time limit is gone, its work stopped.
 */
export class McpTasks {
  readonly #tasks = new Map<string, Task>();

  constructor(
    readonly ttlMs = DEFAULT_TASK_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new working task for `identity`, or undefined when the identity holds too many unfinished ones. */
  create(identity: McpIdentity, abort: AbortController, statusMessage: string): TaskView | undefined {
    const mine = [...this.#tasks.values()].filter((t) => sameIdentity(t.identity, identity));
    if (mine.length >= MAX_TASKS_PER_IDENTITY) {
      const finished = mine.filter((t) => t.status !== 'working').sort((a, b) => a.lastUpdatedAt - b.lastUpdatedAt);
      if (finished.length === 0) return undefined;
      this.#drop(finished[0]!);
    }
    const at = this.now();
    const id = randomUUID();
    const expiry = setTimeout(() => this.#expire(id), this.ttlMs);
    expiry.unref();
    const task: Task = { id, identity, status: 'working', statusMessage, createdAt: at, lastUpdatedAt: at, abort, expiry };
    this.#tasks.set(id, task);
    return view(task, this.ttlMs);
  }

  /** The task with this id, if it belongs to `identity` and is within its time limit. */
  get(identity: McpIdentity, id: string): TaskView | undefined {
    const task = this.#find(identity, id);
    return task && view(task, this.ttlMs);
  }

  /** The call behind a task finished with this result (an `isError` result included: the call itself completed). */
  complete(id: string, result: Record<string, unknown>): void {
    this.#settle(id, 'completed', 'The call finished.', { result });
  }

  /** The call behind a task ended with a protocol error. */
  fail(id: string, error: { code: number; message: string }): void {
    this.#settle(id, 'failed', error.message, { error });
  }

  /**
   * Cancels a working task of `identity`: its call is stopped (a pending approval withdrawn). Undefined when there is
   * no such task; the task as it stands when it had already finished.
   */
  cancel(identity: McpIdentity, id: string): { cancelled: boolean; task: TaskView } | undefined {
    const task = this.#find(identity, id);
    if (!task) return undefined;
    if (task.status !== 'working') return { cancelled: false, task: view(task, this.ttlMs) };
    task.status = 'cancelled';
    task.statusMessage = 'The client cancelled this task.';
    task.lastUpdatedAt = this.now();
    task.abort.abort();
    return { cancelled: true, task: view(task, this.ttlMs) };
  }

  /** Ends every task (the gateway is closing): their calls stop. */
  closeAll(): void {
    for (const task of [...this.#tasks.values()]) this.#drop(task);
  }

  get size(): number {
    return this.#tasks.size;
  }

  #find(identity: McpIdentity, id: string): Task | undefined {
    const task = this.#tasks.get(id);
    if (!task || !sameIdentity(task.identity, identity)) return undefined;
    // The timer may not have fired yet (a busy event loop): the limit holds all the same.
    if (this.now() - task.createdAt >= this.ttlMs) {
      this.#drop(task);
      return undefined;
    }
    return task;
  }

  #settle(id: string, status: TaskStatus, message: string, outcome: Pick<Task, 'result' | 'error'>): void {
    const task = this.#tasks.get(id);
    // Cancelled (or expired) first: the call's late outcome changes nothing.
    if (!task || task.status !== 'working') return;
    task.status = status;
    task.statusMessage = message;
    task.lastUpdatedAt = this.now();
    Object.assign(task, outcome);
  }

  #expire(id: string): void {
    const task = this.#tasks.get(id);
    if (task) this.#drop(task);
  }

  #drop(task: Task): void {
    clearTimeout(task.expiry);
    this.#tasks.delete(task.id);
    if (task.status === 'working') task.abort.abort();
  }
}

function view(task: Task, ttlMs: number): TaskView {
  return {
    taskId: task.id,
    status: task.status,
    statusMessage: task.statusMessage,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs,
    pollIntervalMs: POLL_INTERVAL_MS,
    ...(task.status === 'completed' && task.result && { result: task.result }),
    ...(task.status === 'failed' && task.error && { error: task.error }),
  };
}

function sameIdentity(a: McpIdentity, b: McpIdentity): boolean {
  return a.name === b.name && a.owner === b.owner;
}

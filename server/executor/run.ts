import { errorBody, statusOf, ToolError } from '../errors.js';
import type { CallRecord } from '../store/index.js';
import type { AnyTool, ProgressUpdate, SandboxGrant, ToolContext } from '../tools/types.js';
import type { Redactor } from '../util/redact.js';
import type { CallRequest, RunOutcome } from './call.js';
import type { CallLog } from './call-log.js';
import { CallClock } from './call-clock.js';
import { Cancellation } from './cancellation.js';

export class CallTimeout extends Error {}
export class CallCancelled extends Error {}

export interface RunStep {
  defaultTimeoutMs: number;
  maxOutputBytes: number;
  /** Applied to the live output every viewer of the event stream sees. */
  redactor: Redactor;
  log: CallLog;
}

export interface RunningCall {
  /** Ends the call early: the gateway stopping, or the caller gone. */
  cancellation: Cancellation;
  /** What the run came to; never rejects (a throw, a timeout and a cancellation are outcomes too). */
  outcome: Promise<RunOutcome>;
}

/**
 * Runs the tool's handler under the call's clock (paused while the tool waits for the owner) and cancellation (the
 * caller leaving, the gateway stopping, the timeout), passing its live output and progress on. `onResult` is given a
 * result that passed the size check (the cache keeps it).
 */
export function runHandler(
  step: RunStep,
  def: AnyTool,
  args: Record<string, unknown>,
  record: CallRecord,
  request: Pick<CallRequest, 'signal' | 'onProgress'>,
  grant: SandboxGrant | undefined,
  onResult?: (result: unknown) => void,
): RunningCall {
  const callerSignal = request.signal;
  const cancellation = new Cancellation();
  let over = false;
  // Live output is shown to every viewer of the event stream: redacted, a line at a time.
  const liveOutput = step.redactor.stream();
  const timeoutMs = def.timeoutMs ?? step.defaultTimeoutMs;
  const clock = new CallClock(timeoutMs, () => cancellation.cancel(new CallTimeout()));
  const onCallerGone = () => cancellation.cancel(new CallCancelled('caller went away'));
  callerSignal?.addEventListener('abort', onCallerGone, { once: true });
  if (callerSignal?.aborted) onCallerGone();

  const done = new Promise<unknown>((resolve, reject) => {
    cancellation.onCancel(reject);
    // The handler runs in its own microtask, as it always has: the caller may be gone (or the gateway stopping)
    // before its turn comes, and a write tool must not act for nobody.
    queueMicrotask(() => {
      if (cancellation.cancelled) return;
      try {
        const context = new HandlerContext(cancellation, record);
        context.output = (chunk) => step.log.output(record.id, def.name, liveOutput.push(chunk));
        context.waitingForOwner = (wait) => {
          const resume = clock.pause();
          return wait.finally(resume);
        };
        if (grant) context.grant = grant;
        if (request.onProgress) context.progress = progressReporter(request.onProgress, () => over || cancellation.cancelled);
        Promise.resolve(def.handler(args, context)).then(resolve, reject);
      } catch (error) {
        reject(error);
      }
    });
  });
  const outcome = (async (): Promise<RunOutcome> => {
    try {
      const result = await done;
      const checked = checkOutput(def.name, result, def.maxOutputBytes ?? step.maxOutputBytes);
      if (checked.ok) onResult?.(result);
      return checked;
    } catch (error) {
      return { ok: false, ...describeFailure(error, def.name, timeoutMs) };
    } finally {
      over = true;
      clock.stop();
      callerSignal?.removeEventListener('abort', onCallerGone);
      step.log.output(record.id, def.name, liveOutput.end());
    }
  })();
  return { cancellation, outcome };
}

/**
 * What a handler is given. A class, not an object literal with a getter: V8 builds each such literal its own way,
 * and every call's closures then outlive young-generation collections (measured: ~1 KB promoted per call, and a
 * slower scavenge for every call after).
 */
class HandlerContext implements ToolContext {
  readonly callId: string;
  readonly client: string;
  output?: (chunk: string) => void;
  progress?: (update: ProgressUpdate) => void;
  grant?: SandboxGrant;
  waitingForOwner?: <T>(wait: Promise<T>) => Promise<T>;
  readonly #cancellation: Cancellation;

  constructor(cancellation: Cancellation, record: CallRecord) {
    this.#cancellation = cancellation;
    this.callId = record.id;
    this.client = record.client;
  }

  /** Made at the first ask: the AbortSignal exists only for a tool that looks at it. */
  get signal(): AbortSignal {
    return this.#cancellation.signal;
  }
}

/** A result larger than the limit is not handed to the caller (nor kept): the model is told to ask for less. */
function checkOutput(name: string, result: unknown, maxBytes: number): RunOutcome {
  const size = Buffer.byteLength(JSON.stringify(result ?? null));
  if (size <= maxBytes) return { ok: true, result: result ?? null };
  return {
    ok: false,
    status: 'failed',
    httpStatus: statusOf('OUTPUT_TOO_LARGE'),
    error: errorBody(
      'OUTPUT_TOO_LARGE',
      `"${name}" produced ${size} bytes, more than the ${maxBytes}-byte limit; ask for less (a narrower query, a smaller range).`,
      { bytes: size, limit: maxBytes },
    ),
  };
}

function describeFailure(error: unknown, tool: string, timeoutMs: number): Omit<Extract<RunOutcome, { ok: false }>, 'ok'> {
  if (error instanceof CallTimeout) {
    return {
      status: 'failed',
      httpStatus: statusOf('TOOL_TIMEOUT'),
      error: errorBody('TOOL_TIMEOUT', `"${tool}" did not finish within ${timeoutMs} ms and was stopped.`, { timeout_ms: timeoutMs }),
    };
  }
  if (error instanceof CallCancelled) {
    return {
      status: 'cancelled',
      httpStatus: statusOf('CALL_CANCELLED'),
      error: errorBody('CALL_CANCELLED', `The call to "${tool}" was cancelled (${error.message}).`),
    };
  }
  // A tool may find a refusal itself (bad arguments, its own cancellation): the name's status is answered.
  if (error instanceof ToolError) return { status: error.errorName === 'CALL_CANCELLED' ? 'cancelled' : 'failed', httpStatus: error.status, error: error.toBody() };
  // An unexpected throw is a bug in the tool; its message can help the model, its stack stays here.
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 'failed',
    httpStatus: statusOf('TOOL_EXECUTION_ERROR'),
    error: errorBody('TOOL_EXECUTION_ERROR', `"${tool}" failed: ${message}`),
  };
}

/**
 * The caller's progress listener as a tool sees it: reports stop once the call is over (a late one from a server
 * must not reach a caller that already has its answer), and a failing listener never fails the call.
 */
function progressReporter(listener: (update: ProgressUpdate) => void, ended: () => boolean): (update: ProgressUpdate) => void {
  return (update) => {
    if (ended()) return;
    try {
      listener(update);
    } catch {
      // The caller's business; the tool goes on.
    }
  };
}

import type { GatewayError } from '../errors.js';
import type { Announcer, CallPhase } from '../events/bus.js';
import type { CallRecord, CallStatus, Store } from '../store/index.js';
import type { Redactor } from '../util/redact.js';
import type { CallOutcome, Envelope, RunOutcome } from './call.js';

/** The bus as the executor sees it: calls and their live output, and whether anyone follows calls at all. */
export type CallEvents = Announcer<'call' | 'output'> & { listenerCount(event: 'call'): number };

/**
 * The last steps of every call, run or refused: its record is finished, committed (redacted) to history, and then
 * announced. Also writes calls still running, and passes their live output on.
 */
export class CallLog {
  constructor(
    private readonly store: Store,
    private readonly events: CallEvents,
    private readonly redactor: Redactor,
  ) {}

  /** A call that ran (or was answered from the cache): recorded with its result or the error it ended in. */
  async finish(record: CallRecord, t0: number, outcome: RunOutcome): Promise<CallOutcome> {
    const duration = round(performance.now() - t0);
    record.finished_at = new Date().toISOString();
    record.duration_ms = duration;
    let envelope: Envelope;
    if (outcome.ok) {
      record.status = 'succeeded';
      record.http_status = 200;
      record.result = outcome.result;
      envelope = { success: true, result: outcome.result, duration_ms: duration, cached: record.cache_hit, call_id: record.id };
    } else {
      record.status = outcome.status;
      record.http_status = outcome.httpStatus;
      record.error = { name: outcome.error.name, message: outcome.error.message };
      envelope = { success: false, error: outcome.error, duration_ms: duration, call_id: record.id };
    }
    await this.#record(record);
    return { callId: record.id, status: record.status, httpStatus: record.http_status, envelope };
  }

  /**
   * Refused before running: recorded like any other call so the log shows every attempt. `told` is the refusal as
   * the caller may read it, when that is less than what history keeps for the owner.
   */
  async refuse(record: CallRecord, t0: number, refusal: GatewayError, status: CallStatus = 'failed', told: GatewayError = refusal): Promise<CallOutcome> {
    record.status = status;
    record.http_status = refusal.status;
    record.error = { name: refusal.errorName, message: refusal.message };
    record.finished_at = new Date().toISOString();
    record.duration_ms = round(performance.now() - t0);
    await this.#record(record);
    return {
      callId: record.id,
      status,
      httpStatus: refusal.status,
      envelope: { success: false, error: told.toBody(), call_id: record.id },
    };
  }

  /** Commits the finished call (redacted) to history, then announces it: the caller hears only of what is kept. */
  async #record(record: CallRecord): Promise<void> {
    const stored = this.redactor.record(record);
    try {
      await this.store.calls.saveSoon(stored);
    } catch (error) {
      // The caller still gets its answer; the failure is loud on stderr so a full disk is noticed.
      console.error(`pincer: could not record call ${record.id}: ${(error as Error).message}`);
    }
    this.announce(record.status as CallPhase, record, stored);
  }

  /** Writes a call still running to history, so it shows there and a crash leaves a trace of it. */
  saveRunning(record: CallRecord): void {
    try {
      this.store.calls.save(this.redactor.record(record));
    } catch (error) {
      console.error(`pincer: could not record running call ${record.id}: ${(error as Error).message}`);
    }
  }

  /** Live output of a running call, for every viewer of the event stream (already redacted by the caller). */
  output(callId: string, tool: string, chunk: string): void {
    if (chunk === '') return;
    try {
      this.events.emit('output', { call_id: callId, tool, chunk });
    } catch (error) {
      console.error(`pincer: an output listener failed on call ${callId}: ${(error as Error).message}`);
    }
  }

  /** Listeners (SSE, tray) must never break a call: one that throws is reported and ignored. */
  announce(phase: CallPhase, record: CallRecord, redacted?: CallRecord): void {
    if (this.events.listenerCount('call') === 0) return;
    try {
      this.events.emit('call', { phase, call: redacted ?? this.redactor.record(record) });
    } catch (error) {
      console.error(`pincer: an event listener failed on call ${record.id}: ${(error as Error).message}`);
    }
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

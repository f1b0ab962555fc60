import type { Envelope } from '../executor/executor.js';
import { envelopeForModel } from '../executor/for-model.js';
import type { LoopOptions, Step } from './loop-types.js';
import { unknownToolHint, type ModelCall, type Offer } from './model-calls.js';
import { expectedArguments } from './recovery/schema-summary.js';
import type { ChatMessage } from './types.js';

/** How often one call (same tool, same arguments) runs in a turn before the model is given its first result again. */
const SAME_CALL_RUNS = 3;

type ToolMessage = ChatMessage & { role: 'tool' };

/** Runs the calls of one turn of the tool loop through the executor, as the caller, and keeps their steps. */
export class CallRunner {
  readonly steps: Step[] = [];
  readonly #options: LoopOptions;
  readonly #offer: Offer;
  readonly #repeats = new Map<string, { runs: number; first: Promise<string> }>();

  constructor(options: LoopOptions, offer: Offer) {
    this.#options = options;
    this.#offer = offer;
  }

  /**
   * Runs a call, unless the model already made this very call (tool and arguments) SAME_CALL_RUNS times in this turn:
   * a small model stuck in a loop gets the first result again with a note, not one more run.
   */
  run(call: ModelCall): Promise<ToolMessage> {
    const key = `${call.call.name}\u0000${call.argumentsError === undefined ? stableJson(call.call.arguments) : String(call.call.arguments)}`;
    const seen = this.#repeats.get(key);
    if (seen && seen.runs >= SAME_CALL_RUNS) {
      return seen.first.then((first) => ({
        role: 'tool' as const,
        tool_call_id: call.call.id,
        tool_name: call.call.name,
        content: JSON.stringify({
          ...(JSON.parse(first) as object),
          note: `This exact call already ran ${SAME_CALL_RUNS} times in this turn; this is its first result again, and it was not run once more. Answer with what you have, or call it with different arguments.`,
        }),
      }));
    }
    const run = this.#runCall(call);
    if (seen) seen.runs++;
    else this.#repeats.set(key, { runs: 1, first: run.then((message) => message.content) });
    return run;
  }

  /** One call through the executor; its envelope, as JSON, is the tool's answer to the model. */
  async #runCall(model: ModelCall): Promise<ToolMessage> {
    const options = this.#options;
    const { caller, listener } = options;
    const { call } = model;
    listener?.onCall?.({ tool_call_id: call.id, tool: call.name, arguments: call.arguments });
    const outcome = await options.executor.execute({
      tool: call.name,
      arguments: call.arguments,
      client: caller.client,
      owner: caller.owner,
      via: caller.via,
      ...(options.signal && { signal: options.signal }),
      ...(model.argumentsError !== undefined && { argumentsError: model.argumentsError }),
      ...(model.recovery && { recovery: model.recovery }),
      onPending: ({ approval_id, call_id }) => listener?.onWaiting?.({ approval_id, call_id, tool: call.name }),
    });
    const envelope = outcome.envelope;
    const step: Step = {
      call_id: outcome.callId,
      tool_call_id: call.id,
      tool: call.name,
      arguments: call.arguments,
      status: outcome.status,
      ...(envelope.success ? { result: envelope.result } : { error: envelope.error }),
      ...(envelope.duration_ms !== undefined && { duration_ms: envelope.duration_ms }),
      ...(model.recovery?.shape !== undefined && { recovered: true as const }),
      ...(model.recovery && { recovery: model.recovery }),
    };
    this.steps.push(step);
    listener?.onStep?.(step);
    // The model asked for this call, so it reads the answer whole, as any caller does: with secrets redacted it would
    // write "[REDACTED]" back over the real values of a file it edits. What is kept of the turn is redacted (the
    // executor's history, the bridge's stored conversation); a later turn, read back from storage, sees it redacted.
    // Images, audio and blobs are described, with where their bytes are: never a wall of base64 in the context.
    return { role: 'tool', tool_call_id: call.id, tool_name: call.name, content: JSON.stringify(withHint(envelopeForModel(envelope), model, this.#offer)) };
  }
}

/** A refusal the model can act on: the offered names closest to an unknown one, the schema's expectation in a line. */
function withHint(envelope: Envelope, model: ModelCall, offer: Offer): Envelope {
  if (envelope.success) return envelope;
  const { name } = envelope.error;
  const hint =
    name === 'TOOL_NOT_FOUND' && !model.offered
      ? unknownToolHint(model.call.name, offer)
      : name === 'INVALID_ARGUMENTS' && model.offered
        ? `Expected arguments: ${expectedArguments(offer.schemaOf(model.call.name))}`
        : undefined;
  return hint === undefined ? envelope : { ...envelope, error: { ...envelope.error, message: `${envelope.error.message} ${hint}` } };
}

/** JSON with object keys sorted: the same arguments in another key order are the same call. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

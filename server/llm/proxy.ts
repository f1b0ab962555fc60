import { refuse, type GatewayError } from '../errors.js';
import type { LlmBridge, Asker } from './bridge.js';
import type { LoopListener, LoopResult } from './loop.js';
import type { ChatMessage, Sampling, ToolCall, ToolSpec } from './types.js';

/**
 * What both proxies share: the caller's conversation and tools in, Pincer's tools added, Pincer's calls run
 * server-side, the caller's own calls handed back.
 *
 * A mixed answer — the model calls Pincer's tools and the caller's own in one turn — is handled so that the
 * conversation the caller sends next is still valid upstream: Pincer's calls run at once, the caller receives an
 * assistant message holding only its own calls (a valid message by itself), and Pincer's calls and results are
 * kept here, keyed by the caller's call ids. When the caller's next request carries that assistant message, they
 * are put back into it (the calls into its tool_calls, their results right after it), so the model sees the whole
 * turn. If they are gone (an hour later, a restart) the conversation is still valid, only without them.
 */
export class MixedTurns {
  readonly #kept = new Map<string, { calls: ToolCall[]; results: ChatMessage[]; at: number }>();

  constructor(
    private readonly ttlMs = 60 * 60_000,
    private readonly max = 2000,
  ) {}

  keep(client: string, callerCalls: ToolCall[], mixed: LoopResult['mixed'], now = Date.now()): void {
    if (mixed.length === 0 || callerCalls.length === 0) return;
    const entry = { calls: mixed.map((m) => m.call), results: mixed.map((m) => m.result), at: now };
    for (const call of callerCalls) this.#kept.set(`${client}\u0000${call.id}`, entry);
    while (this.#kept.size > this.max) this.#kept.delete(this.#kept.keys().next().value!);
  }

  /** The caller's messages with Pincer's part of earlier mixed turns put back. */
  restore(client: string, messages: ChatMessage[], now = Date.now()): ChatMessage[] {
    if (this.#kept.size === 0) return messages;
    const out: ChatMessage[] = [];
    for (const message of messages) {
      if (message.role !== 'assistant' || !message.tool_calls?.length) {
        out.push(message);
        continue;
      }
      const entry = message.tool_calls.map((c) => this.#kept.get(`${client}\u0000${c.id}`)).find((e) => e && now - e.at < this.ttlMs);
      const already = new Set(message.tool_calls.map((c) => c.id));
      if (!entry || entry.calls.some((c) => already.has(c.id))) {
        out.push(message);
        continue;
      }
      out.push({ ...message, tool_calls: [...entry.calls, ...message.tool_calls] }, ...entry.results);
    }
    return out;
  }
}

export interface ProxyTurn {
  asker: Asker;
  /** `openai-proxy` or `ollama-proxy`: the door, recorded with the model. */
  door: string;
  model: string | undefined;
  messages: ChatMessage[];
  callerTools: ToolSpec[];
  sampling?: Sampling | undefined;
  passthrough?: Record<string, unknown> | undefined;
  stream: boolean;
  signal: AbortSignal;
  listener?: LoopListener;
}

/** Runs one proxied turn: the caller's tools win a name both define (the caller asked for its own). */
export async function runProxyTurn(bridge: LlmBridge, mixed: MixedTurns, turn: ProxyTurn): Promise<LoopResult & { model: string }> {
  const provider = bridge.provider();
  const model = await bridge.model(provider, turn.model, turn.signal);
  const callerNames = new Set(turn.callerTools.map((t) => t.function.name));
  const ours = bridge.tools(turn.asker).filter((t) => !callerNames.has(t.function.name));
  const result = await bridge.runTurn({
    provider,
    executor: bridge.executor,
    caller: { client: turn.asker.client, owner: turn.asker.owner, via: `${turn.door}:${model}` },
    request: {
      model,
      messages: mixed.restore(turn.asker.client, turn.messages),
      tools: [...ours, ...turn.callerTools],
      ...(turn.sampling && { sampling: turn.sampling }),
      ...(turn.passthrough && provider.api === passthroughApi(turn.door) && { passthrough: turn.passthrough }),
    },
    ...bridge.loopSettings(),
    ...bridge.toolChoice(turn.asker, (name) => callerNames.has(name)),
    isCallerTool: (name) => callerNames.has(name),
    signal: turn.signal,
    stream: turn.stream,
    ...(turn.listener && { listener: turn.listener }),
  });
  mixed.keep(turn.asker.client, result.callerCalls, result.mixed);
  return { ...result, model: result.final.model || model };
}

/** What Pincer did in the turn: the calls it ran, how the model was given tools, the window asked for. */
export function pincerMeta(result: LoopResult): Record<string, unknown> {
  return {
    steps: result.steps,
    tool_mode: result.toolMode,
    ...(result.toolModeReason && { tool_mode_reason: result.toolModeReason }),
    ...(result.context && { context: result.context }),
    ...(result.offered && { tools_offered: result.offered }),
  };
}

/** Extra fields of a request are passed on only to an upstream of the same API (they mean nothing to the other). */
function passthroughApi(door: string): 'openai' | 'ollama' {
  return door.startsWith('ollama') ? 'ollama' : 'openai';
}

export function badRequest(message: string): GatewayError {
  return refuse.invalidRequest(message);
}

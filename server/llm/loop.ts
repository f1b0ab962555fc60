import type { ErrorBody } from '../errors.js';
import type { CallRecovery, CallStatus } from '../store/index.js';
import type { Envelope, Executor } from '../executor/executor.js';
import { envelopeForModel } from '../executor/for-model.js';
import { AnswerStream } from './answer-text.js';
import { DEFAULT_MAX_CONTEXT, planWindow, type WindowReport } from './context-window.js';
import { modelCalls, newToolCallId, offerOf, unknownToolHint, type ModelCall, type Offer } from './model-calls.js';
import { toolRefusal, type ModelProfile, type ModelProfiles, type ToolMode } from './model-profile.js';
import { promptedRequest } from './prompted.js';
import { nameResolver } from './recovery/names.js';
import { splitReasoning } from './recovery/reasoning.js';
import { expectedArguments } from './recovery/schema-summary.js';
import type { ToolSelection } from './tool-selection.js';
import type { AssistantTurn, ChatMessage, ChatRequest, LlmProvider, ToolCall, ToolSpec, Usage } from './types.js';

/** Who the loop acts for: every call runs as this client, through the one pipeline. */
export interface LoopCaller {
  client: string;
  owner: boolean;
  /** The door, with the model beside it: `llm:<model>`, `openai-proxy:<model>`… */
  via: string;
}

/** One tool call the loop made, as the caller is told of it. */
export interface Step {
  call_id: string;
  tool_call_id: string;
  tool: string;
  arguments: unknown;
  status: CallStatus;
  result?: unknown;
  error?: ErrorBody;
  duration_ms?: number;
  /** The call was written in the answer's text, not sent as a native call. */
  recovered?: true;
  /** Its shape, repairs, the name as written (see CallRecovery). */
  recovery?: CallRecovery;
}

export interface LoopListener {
  onText?(text: string): void;
  /** The model's reasoning (`<think>` blocks), kept out of the answer's text. */
  onReasoning?(text: string): void;
  /** A call is about to go through the pipeline. */
  onCall?(call: { tool_call_id: string; tool: string; arguments: unknown }): void;
  onStep?(step: Step): void;
  /** A call waits for the owner's approval: the loop is paused until they answer. */
  onWaiting?(waiting: { call_id: string; approval_id: string; tool: string }): void;
  /** The model is given its tools in the prompt (it has no native tool support). */
  onMode?(mode: { mode: ToolMode; reason?: string }): void;
}

export interface LoopOptions {
  provider: LlmProvider;
  executor: Executor;
  caller: LoopCaller;
  request: ChatRequest;
  /** Rounds of tool calls before the loop stops asking the model for more. */
  maxSteps: number;
  maxJsonDepth: number;
  /** Whether a tool the model called is the caller's own (the proxies): those are handed back, not run. */
  isCallerTool?: (name: string) => boolean;
  signal?: AbortSignal;
  listener?: LoopListener;
  /** Stream the model's text (onText); otherwise each model answer is read whole. */
  stream?: boolean;
  /** Tool mode and context length per model; without it every model is taken to call tools natively. */
  profiles?: ModelProfiles;
  /** The largest context window asked of Ollama (`llm.max_context`). */
  maxContext?: number;
  /** Picks the tools offered in each round (`llm.max_tools`); without it, every tool of the request is offered. */
  selectTools?: (tools: readonly ToolSpec[], messages: readonly ChatMessage[], profile: ModelProfile) => ToolSelection | undefined;
  /** The tools, most worth keeping first, for when they do not fit the model's window; without it, as offered. */
  orderTools?: (tools: readonly ToolSpec[], messages: readonly ChatMessage[]) => ToolSpec[];
}

export interface LoopResult {
  /** The messages this turn added after the request's own: assistant turns and tool results, in order. */
  added: ChatMessage[];
  /** The model's last answer. */
  final: AssistantTurn;
  /** Every answer's text without call markup or reasoning, joined: what the caller sees as the answer. */
  answer: string;
  /** The model's reasoning blocks, kept apart from the answer. */
  reasoning: string;
  steps: Step[];
  /** Tool calls of the caller's own tools in the last answer (the proxies hand these back). */
  callerCalls: ToolCall[];
  /** Pincer's calls made in that same last answer, with their results (see the proxies' mixed turns). */
  mixed: { call: ToolCall; result: ChatMessage & { role: 'tool' } }[];
  stoppedAtLimit: boolean;
  /** How the model was given its tools in the end. */
  toolMode: ToolMode;
  toolModeReason?: string;
  /** The last request's window (Ollama): its size, the num_ctx asked for, tools left out to fit. */
  context?: WindowReport;
  /** The tools offered in the last request, and why each, when not all of them were. */
  offered?: ToolSelection['offered'];
  usage: Usage;
  timings: { model_ms: number; tools_ms: number; total_ms: number; model_calls: number };
}

/** How often one call (same tool, same arguments) runs in a turn before the model is given its first result again. */
const SAME_CALL_RUNS = 3;

/**
 * Asks the model, runs the tool calls it makes through the executor (concurrently, as the caller), feeds the
 * results back and asks again, until it answers without calling Pincer's tools or the step limit is reached.
 * Calls a small model writes as text are recovered, names and arguments mended (see model-calls.ts); a model
 * without tool support is given its tools in the prompt. A malformed call is not an error of the loop: the refusal
 * goes back to the model as the tool's result.
 */
export async function runToolLoop(options: LoopOptions): Promise<LoopResult> {
  const loop = new ToolLoop(options);
  await loop.chooseToolMode();
  return loop.run();
}

/** What a model's turn holds once read: the calls found (native or written as text) and the text around them. */
type FoundCalls = ReturnType<typeof modelCalls>;

/** One turn of the loop: what it has said, run and counted so far. */
class ToolLoop {
  readonly #t0 = performance.now();
  readonly #options: LoopOptions;
  readonly #messages: ChatMessage[];
  readonly #added: ChatMessage[] = [];
  readonly #steps: Step[] = [];
  readonly #usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  readonly #timings = { model_ms: 0, tools_ms: 0, total_ms: 0, model_calls: 0 };
  readonly #offer: Offer;
  readonly #usedIds: Set<string>;
  readonly #repeats = new Map<string, { runs: number; first: Promise<string> }>();
  #profile: ModelProfile = { toolMode: 'native' };
  #answer = '';
  #reasoning = '';
  #context: WindowReport | undefined;
  #offered: ToolSelection['offered'] | undefined;
  /** The end of the text streamed so far, and whether the next round's first text must be set apart from it. */
  #streamedTail = '';
  #newRound = false;

  constructor(options: LoopOptions) {
    const { request } = options;
    this.#options = options;
    this.#messages = [...request.messages];
    this.#offer = offerOf(request.tools ?? [], nameResolver);
    this.#usedIds = new Set(request.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [])));
  }

  /** Native tool calls, or tools described in the prompt for a model known to lack them. */
  async chooseToolMode(): Promise<void> {
    const { profiles, provider, request, signal, listener } = this.#options;
    this.#profile = profiles ? await profiles.profile(provider, request.model, signal) : { toolMode: 'native' };
    if (this.#profile.toolMode === 'prompted' && this.#offer.names.length > 0) {
      listener?.onMode?.({ mode: 'prompted', ...(this.#profile.reason && { reason: this.#profile.reason }) });
    }
  }

  /** Round after round until the model answers without calling Pincer's tools, hands calls back, or hits the limit. */
  async run(): Promise<LoopResult> {
    for (let round = 0; ; round++) {
      const turn = await this.#askTimed(round);
      const found = this.#read(turn);
      let callerCalls = found.calls.filter((c) => this.#options.isCallerTool?.(c.call.name) === true);
      const ours = found.calls.filter((c) => !callerCalls.includes(c));
      if (ours.length === 0) {
        this.#added.push(assistantMessage(found.text, callerCalls));
        return this.#finish(turn, callerCalls);
      }
      if (round >= this.#options.maxSteps) {
        // The model keeps calling tools: stop here rather than loop for ever; what it said so far is the answer.
        this.#added.push(assistantMessage(found.text, []));
        return this.#finish(turn, callerCalls, { stoppedAtLimit: true });
      }
      const x0 = performance.now();
      const results = await Promise.all(ours.map((call) => runOnce(call, this.#options, this.#offer, this.#steps, this.#repeats)));
      this.#timings.tools_ms += performance.now() - x0;
      if (callerCalls.length > 0) {
        // A mixed answer: Pincer's calls ran; the caller gets its own calls back and the turn ends here. Their ids are
        // Pincer's own, so the part kept for the caller's next request (MixedTurns) cannot be confused with another.
        callerCalls = callerCalls.map((c) => ({ ...c, call: { ...c.call, id: newToolCallId() } }));
        this.#added.push(assistantMessage(found.text, callerCalls));
        return this.#finish(turn, callerCalls, { mixed: ours.map((c, i) => ({ call: c.call, result: results[i]! })) });
      }
      const assistant = assistantMessage(found.text, ours);
      this.#messages.push(assistant, ...results);
      this.#added.push(assistant, ...results);
    }
  }

  /** One round's request, timed and counted; a server that refuses tools for this model gets them in the prompt. */
  async #askTimed(round: number): Promise<AssistantTurn> {
    const { provider, request, profiles, listener } = this.#options;
    const m0 = performance.now();
    let turn: AssistantTurn;
    try {
      turn = await this.#ask(round, this.#profile.toolMode);
    } catch (error) {
      // A server that refuses tools for this model: the same request again, the tools described in the prompt.
      const refused = this.#profile.toolMode === 'native' && this.#offer.names.length > 0 ? toolRefusal(error) : undefined;
      if (refused === undefined) throw error;
      this.#profile = profiles?.markPrompted(provider, request.model, refused) ?? { ...this.#profile, toolMode: 'prompted', reason: refused };
      listener?.onMode?.({ mode: 'prompted', reason: refused });
      turn = await this.#ask(round, 'prompted');
    }
    this.#newRound = true;
    this.#timings.model_ms += performance.now() - m0;
    this.#timings.model_calls++;
    if (turn.usage) {
      this.#usage.prompt_tokens += turn.usage.prompt_tokens;
      this.#usage.completion_tokens += turn.usage.completion_tokens;
    }
    return turn;
  }

  /** One request to the model in the given mode; a streamed answer's text reaches the listener as it comes. */
  async #ask(round: number, mode: ToolMode): Promise<AssistantTurn> {
    const options = this.#options;
    const { provider, request, listener } = options;
    const messages = this.#messages;
    const selection = options.selectTools?.(request.tools ?? [], messages, this.#profile);
    this.#offered = selection?.offered;
    const tools = selection?.tools ?? request.tools ?? [];
    let sent: ChatRequest = { ...request, messages, tools };
    if (round > 0 && request.passthrough) sent.passthrough = withoutForcedTool(request.passthrough);
    if (provider.api === 'ollama') {
      const plan = planWindow({
        messages,
        tools,
        contextLength: this.#profile.contextLength,
        maxContext: options.maxContext ?? DEFAULT_MAX_CONTEXT,
        answerTokens: request.sampling?.max_tokens,
        requested: requestedWindow(request.passthrough),
        keepOrder: (tools) => options.orderTools?.(tools, messages) ?? [...tools],
      });
      sent = { ...sent, tools: plan.tools, ...(plan.numCtx !== undefined && { contextWindow: plan.numCtx }) };
      this.#context = plan.report;
    }
    if (mode === 'prompted') sent = promptedRequest({ ...sent, ...(sent.passthrough && { passthrough: withoutToolOptions(sent.passthrough) }) });
    const stream = options.stream
      ? new AnswerStream(this.#offer.resolve, {
          text: (text) => {
            if (this.#newRound && this.#streamedTail !== '') text = roundBreak(this.#streamedTail) + text;
            this.#newRound = false;
            this.#streamedTail = (this.#streamedTail + text).slice(-2);
            listener?.onText?.(text);
          },
          reasoning: (text) => listener?.onReasoning?.(text),
        })
      : undefined;
    const turn = await provider.chat(sent, {
      ...(options.signal && { signal: options.signal }),
      ...(stream && { onText: (text: string) => stream.push(text), onReasoning: (text: string) => listener?.onReasoning?.(text) }),
    });
    stream?.finish();
    return turn;
  }

  /** The turn's reasoning and answer text (told to the listener when not streamed), and the calls it makes. */
  #read(turn: AssistantTurn): FoundCalls {
    const { listener } = this.#options;
    const thought = splitReasoning(turn.content);
    // Reasoning the server sent apart (a thinking model's own channel), then any <think> blocks in the text.
    const thinking = [turn.reasoning?.trim(), thought.reasoning].filter(Boolean).join('\n\n');
    if (thinking) this.#reasoning += this.#reasoning ? `\n\n${thinking}` : thinking;
    const found = modelCalls(turn.toolCalls, thought.text, this.#offer, this.#usedIds, this.#options.maxJsonDepth);
    // The answer is read from the whole text, streamed or not, so both read the same; rounds are paragraphs apart.
    const text = this.#answer !== '' && found.text !== '' ? roundBreak(this.#answer) + found.text : found.text;
    this.#answer += text;
    if (!this.#options.stream) {
      if (thinking) listener?.onReasoning?.(thinking);
      if (text) listener?.onText?.(text);
    }
    return found;
  }

  #finish(turn: AssistantTurn, callerCalls: FoundCalls['calls'], extra: Partial<LoopResult> = {}): LoopResult {
    const timings = this.#timings;
    timings.total_ms = performance.now() - this.#t0;
    for (const key of ['model_ms', 'tools_ms', 'total_ms'] as const) timings[key] = Math.round(timings[key] * 10) / 10;
    const profile = this.#profile;
    return {
      added: this.#added,
      final: turn,
      answer: this.#answer,
      reasoning: this.#reasoning,
      steps: this.#steps,
      callerCalls: callerCalls.map((c) => c.call),
      mixed: [],
      stoppedAtLimit: false,
      toolMode: profile.toolMode,
      ...(profile.reason && { toolModeReason: profile.reason }),
      ...(this.#context && { context: this.#context }),
      ...(this.#offered && { offered: this.#offered }),
      usage: this.#usage,
      timings,
      ...extra,
    };
  }
}

/** What sets a round's text apart from the text before it: a blank line. */
function roundBreak(before: string): string {
  return /\n[ \t]*\n\s*$/.test(before) ? '' : /\n[ \t]*$/.test(before) ? '\n' : '\n\n';
}

/**
 * A caller's `tool_choice` that forces a call ("required", or one named function) holds for the model's first answer
 * only: kept on every round, it would make the model call tools until the step limit and never answer.
 */
function withoutForcedTool(passthrough: Record<string, unknown>): Record<string, unknown> {
  const choice = passthrough.tool_choice;
  if (choice === undefined || choice === 'auto' || choice === 'none') return passthrough;
  const { tool_choice: _forced, ...rest } = passthrough;
  return rest;
}

/** A request without `tools` may not carry tool options (OpenAI refuses `tool_choice` alone). */
function withoutToolOptions(passthrough: Record<string, unknown>): Record<string, unknown> {
  const { tool_choice: _choice, parallel_tool_calls: _parallel, ...rest } = passthrough;
  return rest;
}

/** A `num_ctx` the caller of the Ollama proxy set itself. */
function requestedWindow(passthrough: Record<string, unknown> | undefined): number | undefined {
  const value = (passthrough?.options as { num_ctx?: unknown } | undefined)?.num_ctx;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function assistantMessage(content: string, calls: ModelCall[]): ChatMessage {
  return { role: 'assistant', content, ...(calls.length > 0 && { tool_calls: calls.map((c) => c.call) }) };
}

/**
 * Runs a call, unless the model already made this very call (tool and arguments) SAME_CALL_RUNS times in this turn:
 * a small model stuck in a loop gets the first result again with a note, not one more run.
 */
function runOnce(call: ModelCall, options: LoopOptions, offer: Offer, steps: Step[], repeats: Map<string, { runs: number; first: Promise<string> }>): Promise<ChatMessage & { role: 'tool' }> {
  const key = `${call.call.name}\u0000${call.argumentsError === undefined ? stableJson(call.call.arguments) : String(call.call.arguments)}`;
  const seen = repeats.get(key);
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
  const run = runCall(call, options, offer, steps);
  if (seen) seen.runs++;
  else repeats.set(key, { runs: 1, first: run.then((message) => message.content) });
  return run;
}

/** One call through the executor; its envelope, as JSON, is the tool's answer to the model. */
async function runCall(model: ModelCall, options: LoopOptions, offer: Offer, steps: Step[]): Promise<ChatMessage & { role: 'tool' }> {
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
  steps.push(step);
  listener?.onStep?.(step);
  // The model asked for this call, so it reads the answer whole, as any caller does: with secrets redacted it would
  // write "[REDACTED]" back over the real values of a file it edits. What is kept of the turn is redacted (the
  // executor's history, the bridge's stored conversation); a later turn, read back from storage, sees it redacted.
  // Images, audio and blobs are described, with where their bytes are: never a wall of base64 in the context.
  return { role: 'tool', tool_call_id: call.id, tool_name: call.name, content: JSON.stringify(withHint(envelopeForModel(envelope), model, offer)) };
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

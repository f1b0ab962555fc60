import { AnswerStream } from './answer-text.js';
import { DEFAULT_MAX_CONTEXT, planWindow, type WindowReport } from './context-window.js';
import { CallRunner } from './loop-calls.js';
import type { LoopOptions, LoopResult } from './loop-types.js';
import { modelCalls, newToolCallId, offerOf, type ModelCall, type Offer } from './model-calls.js';
import { toolRefusal, type ModelProfile, type ToolMode } from './model-profile.js';
import { promptedRequest } from './prompted.js';
import { nameResolver } from './recovery/names.js';
import { splitReasoning } from './recovery/reasoning.js';
import type { ToolSelection } from './tool-selection.js';
import type { AssistantTurn, ChatMessage, ChatRequest, Usage } from './types.js';

export type { LoopCaller, LoopListener, LoopOptions, LoopResult, Step } from './loop-types.js';

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
  readonly #usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  readonly #timings = { model_ms: 0, tools_ms: 0, total_ms: 0, model_calls: 0 };
  readonly #offer: Offer;
  readonly #usedIds: Set<string>;
  readonly #calls: CallRunner;
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
    this.#calls = new CallRunner(options, this.#offer);
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
      const results = await Promise.all(ours.map((call) => this.#calls.run(call)));
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
      steps: this.#calls.steps,
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

import type { ErrorBody } from '../errors.js';
import type { CallStatus } from '../store/index.js';
import type { Executor } from '../executor/executor.js';
import { envelopeForModel } from '../executor/for-model.js';
import { decodeArguments } from '../util/tool-arguments.js';
import type { AssistantTurn, ChatMessage, ChatRequest, LlmProvider, ToolCall, Usage } from './types.js';

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
}

export interface LoopListener {
  onText?(text: string): void;
  /** A call is about to go through the pipeline. */
  onCall?(call: { tool_call_id: string; tool: string; arguments: unknown }): void;
  onStep?(step: Step): void;
  /** A call waits for the owner's approval: the loop is paused until they answer. */
  onWaiting?(waiting: { call_id: string; approval_id: string; tool: string }): void;
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
}

export interface LoopResult {
  /** The messages this turn added after the request's own: assistant turns and tool results, in order. */
  added: ChatMessage[];
  /** The model's last answer. */
  final: AssistantTurn;
  /** Every answer's text, joined: what the caller sees as the answer. */
  answer: string;
  steps: Step[];
  /** Tool calls of the caller's own tools in the last answer (the proxies hand these back). */
  callerCalls: ToolCall[];
  /** Pincer's calls made in that same last answer, with their results (see the proxies' mixed turns). */
  mixed: { call: ToolCall; result: ChatMessage & { role: 'tool' } }[];
  stoppedAtLimit: boolean;
  usage: Usage;
  timings: { model_ms: number; tools_ms: number; total_ms: number; model_calls: number };
}

/**
 * Asks the model, runs the tool calls it makes through the executor (concurrently, as the caller), feeds the
 * results back and asks again, until it answers without calling Pincer's tools or the step limit is reached.
 * A malformed call is not an error of the loop: the refusal goes back to the model as the tool's result.
 */
export async function runToolLoop(options: LoopOptions): Promise<LoopResult> {
  const t0 = performance.now();
  const { provider, request, listener } = options;
  const messages = [...request.messages];
  const added: ChatMessage[] = [];
  const steps: Step[] = [];
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  const timings = { model_ms: 0, tools_ms: 0, total_ms: 0, model_calls: 0 };
  let answer = '';

  for (let round = 0; ; round++) {
    const m0 = performance.now();
    const turn = await provider.chat(
      { ...request, messages, ...(round > 0 && request.passthrough && { passthrough: withoutForcedTool(request.passthrough) }) },
      {
        ...(options.signal && { signal: options.signal }),
        ...(options.stream && { onText: (text: string) => listener?.onText?.(text) }),
      },
    );
    timings.model_ms += performance.now() - m0;
    timings.model_calls++;
    if (turn.usage) {
      usage.prompt_tokens += turn.usage.prompt_tokens;
      usage.completion_tokens += turn.usage.completion_tokens;
    }
    if (!options.stream && turn.content) listener?.onText?.(turn.content);
    answer += turn.content;

    const callerCalls = turn.toolCalls.filter((call) => options.isCallerTool?.(call.name) === true);
    const ours = turn.toolCalls.filter((call) => !callerCalls.includes(call));
    const finish = (extra: Partial<LoopResult> = {}): LoopResult => {
      timings.total_ms = performance.now() - t0;
      for (const key of ['model_ms', 'tools_ms', 'total_ms'] as const) timings[key] = Math.round(timings[key] * 10) / 10;
      return { added, final: turn, answer, steps, callerCalls, mixed: [], stoppedAtLimit: false, usage, timings, ...extra };
    };
    if (ours.length === 0) {
      added.push(assistantMessage(turn, turn.toolCalls));
      return finish();
    }
    if (round >= options.maxSteps) {
      // The model keeps calling tools: stop here rather than loop for ever; what it said so far is the answer.
      added.push(assistantMessage(turn, []));
      return finish({ stoppedAtLimit: true });
    }

    const x0 = performance.now();
    const results = await Promise.all(ours.map((call) => runCall(call, options, steps)));
    timings.tools_ms += performance.now() - x0;
    if (callerCalls.length > 0) {
      // A mixed answer: Pincer's calls ran; the caller gets its own calls back and the turn ends here.
      added.push(assistantMessage(turn, callerCalls));
      return finish({ mixed: ours.map((call, i) => ({ call, result: results[i]! })) });
    }
    const assistant = assistantMessage(turn, ours);
    messages.push(assistant, ...results);
    added.push(assistant, ...results);
  }
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

function assistantMessage(turn: AssistantTurn, calls: ToolCall[]): ChatMessage {
  return { role: 'assistant', content: turn.content, ...(calls.length > 0 && { tool_calls: calls }) };
}

/** One call through the executor; its envelope, as JSON, is the tool's answer to the model. */
async function runCall(call: ToolCall, options: LoopOptions, steps: Step[]): Promise<ChatMessage & { role: 'tool' }> {
  const { caller, listener } = options;
  const decoded = decodeArguments(call.arguments, options.maxJsonDepth);
  listener?.onCall?.({ tool_call_id: call.id, tool: call.name, arguments: decoded.value });
  const outcome = await options.executor.execute({
    tool: call.name,
    arguments: decoded.value,
    client: caller.client,
    owner: caller.owner,
    via: caller.via,
    ...(options.signal && { signal: options.signal }),
    ...(decoded.error !== undefined && { argumentsError: decoded.error }),
    onPending: ({ approval_id, call_id }) => listener?.onWaiting?.({ approval_id, call_id, tool: call.name }),
  });
  const envelope = outcome.envelope;
  const step: Step = {
    call_id: outcome.callId,
    tool_call_id: call.id,
    tool: call.name,
    arguments: decoded.error === undefined ? decoded.value : call.arguments,
    status: outcome.status,
    ...(envelope.success ? { result: envelope.result } : { error: envelope.error }),
    ...(envelope.duration_ms !== undefined && { duration_ms: envelope.duration_ms }),
  };
  steps.push(step);
  listener?.onStep?.(step);
  // The model asked for this call, so it reads the answer whole, as any caller does: with secrets redacted it would
  // write "[REDACTED]" back over the real values of a file it edits. What is kept of the turn is redacted (the
  // executor's history, the bridge's stored conversation); a later turn, read back from storage, sees it redacted.
  // Images, audio and blobs are described, with where their bytes are: never a wall of base64 in the context.
  return { role: 'tool', tool_call_id: call.id, tool_name: call.name, content: JSON.stringify(envelopeForModel(envelope)) };
}

/** What the tool loop is given and what it hands back: loop.ts runs the rounds, loop-calls.ts each call. */
import type { ErrorBody } from '../errors.js';
import type { Executor } from '../executor/executor.js';
import type { CallRecovery, CallStatus } from '../store/index.js';
import type { WindowReport } from './context-window.js';
import type { ModelProfile, ModelProfiles, ToolMode } from './model-profile.js';
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

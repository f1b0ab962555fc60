import { randomUUID } from 'node:crypto';
import type { PincerConfig } from '../config/config.js';
import { refuse } from '../errors.js';
import type { Executor } from '../executor/executor.js';
import type { ClientAccess } from '../policy/access.js';
import type { ConversationSummary, Store, StoredMessage } from '../store/index.js';
import { toOpenAITool } from '../tools/formats.js';
import type { ToolRegistry } from '../tools/registry.js';
import { noModel } from './errors.js';
import { DEFAULT_UPSTREAM, type UpstreamOptions } from './http.js';
import { runToolLoop, type LoopListener, type LoopOptions, type LoopResult, type Step } from './loop.js';
import { ModelProfiles, type ToolMode } from './model-profile.js';
import { selectTools, toolsForWindow, windowOrder, type RankingInput } from './tool-selection.js';
import type { ToolSearch } from '../policy/tool-search.js';
import { SEARCH_TOOLS } from '../tools/builtin/search-tools.js';
import type { WindowReport } from './context-window.js';
import { OllamaProvider } from './ollama.js';
import { OpenAIProvider } from './openai.js';
import type { ChatMessage, LlmProvider, ToolSpec } from './types.js';

export interface BridgeOptions {
  config: PincerConfig;
  registry: ToolRegistry;
  access: ClientAccess;
  executor: Executor;
  store: Store;
  /** Ranks tools for a conversation, to offer each turn the few that matter (`llm.max_tools`). */
  toolSearch?: ToolSearch;
  /** Retries, backoff, the silence timeout and the caps on an answer towards the LLM server (tests set small ones). */
  upstream?: Partial<Pick<UpstreamOptions, 'retries' | 'backoffMs' | 'idleTimeoutMs' | 'maxBodyBytes' | 'maxStreamBytes' | 'maxLineBytes'>>;
  /** Rounds of tool calls in one turn before the loop stops (default 10). */
  maxSteps?: number;
}

/** Who is asking: the token's client (or the owner), as every call of the turn is recorded. */
export interface Asker {
  client: string;
  owner: boolean;
}

export interface ChatInput {
  message: string;
  conversationId?: string | undefined;
  model?: string | undefined;
}

export interface ChatAnswer {
  conversation_id: string;
  answer: string;
  steps: Step[];
  model: string;
  timings: LoopResult['timings'];
  usage: LoopResult['usage'];
  stopped_at_step_limit: boolean;
  /** `prompted` when the model has no native tool support and its tools were described in the prompt. */
  tool_mode: ToolMode;
  tool_mode_reason?: string;
  /** The model's reasoning (`<think>` blocks), kept out of the answer. */
  reasoning?: string;
  /** The window asked of Ollama and the tools left out to fit it. */
  context?: WindowReport;
  /** The tools offered to the model in the last request and why, when not every tool was (`llm.max_tools`). */
  tools_offered?: LoopResult['offered'];
}

const MAX_MESSAGE_CHARS = 1_000_000;
const MODEL_NAME_MAX = 120;

/**
 * The LLM bridge: the configured LLM server (read from the live config, so a Settings change applies to the next
 * request), the tools a caller may use, the tool loop, and the conversations of POST /chat.
 */
export class LlmBridge {
  readonly maxSteps: number;
  /** What each model can do (native tools or prompted, context length), learnt once per model. */
  readonly profiles = new ModelProfiles();
  /** The turns under way, so a revoked client's can be stopped (cancelClient). */
  readonly #turns = new Set<{ caller: LoopOptions['caller']; started: number; stop: AbortController }>();

  constructor(private readonly options: BridgeOptions) {
    this.maxSteps = options.maxSteps ?? 10;
  }

  get maxJsonDepth(): number {
    return this.options.config.jsonMaxDepth;
  }

  /** The model set in the configuration, if any. */
  get configuredModel(): string | undefined {
    return this.options.config.llm.model;
  }

  get executor(): Executor {
    return this.options.executor;
  }

  /** A client for the LLM server as configured right now. */
  provider(): LlmProvider {
    const { llm, llmApiKey } = this.options.config;
    const upstream: UpstreamOptions = { ...DEFAULT_UPSTREAM, ...this.options.upstream, baseUrl: llm.baseUrl, api: llm.api, apiKey: llmApiKey };
    return llm.api === 'openai' ? new OpenAIProvider(upstream) : new OllamaProvider(upstream);
  }

  /** The model to use: the one asked for, else the configured one, else the first the server lists. */
  async model(provider: LlmProvider, requested: string | undefined, signal?: AbortSignal): Promise<string> {
    const chosen = requested?.trim() || this.options.config.llm.model;
    if (chosen) return chosen.slice(0, MODEL_NAME_MAX);
    const first = (await provider.models(signal))[0]?.id;
    if (!first) throw noModel();
    return first;
  }

  /** What every tool loop of this bridge shares: the limits, the models' profiles, the window's cap. */
  loopSettings(): Pick<LoopOptions, 'maxSteps' | 'maxJsonDepth' | 'profiles' | 'maxContext'> {
    return { maxSteps: this.maxSteps, maxJsonDepth: this.maxJsonDepth, profiles: this.profiles, maxContext: this.options.config.llm.maxContext };
  }

  /**
   * How this caller's tools are chosen each round, by one ranking: at most `llm.max_tools` of them (else what the
   * model's window takes well) plus search_tools, nothing left out when all fit or the window is not known; and,
   * when even those do not fit the window, which to leave out first.
   */
  toolChoice(asker: Asker, isCallerTool: (name: string) => boolean = () => false): Pick<LoopOptions, 'selectTools' | 'orderTools'> {
    const { registry, access, toolSearch, config } = this.options;
    const ranking = (tools: readonly ToolSpec[], messages: readonly ChatMessage[]): RankingInput => {
      const mine = access.usable(registry, asker.client, asker.owner);
      return {
        tools,
        messages,
        searchTool: SEARCH_TOOLS,
        isCallerTool,
        found: access.foundFor(asker.client),
        rank: (query, limit) => toolSearch?.rank(mine, query, limit) ?? [],
      };
    };
    return {
      selectTools: (tools, messages, profile) => {
        const cap = config.llm.maxTools ?? toolsForWindow(profile.contextLength);
        return Number.isFinite(cap) ? selectTools({ ...ranking(tools, messages), cap }) : undefined;
      },
      orderTools: (tools, messages) => windowOrder(ranking(tools, messages)),
    };
  }

  /** The tools this caller may use, in the function format both APIs take. */
  tools(asker: Asker): ToolSpec[] {
    return this.options.access.visible(this.options.registry, asker.client, asker.owner).tools.map(toOpenAITool);
  }

  /** One turn of POST /chat: the conversation so far, the new message, the loop, and the turn saved. */
  async chat(input: ChatInput, asker: Asker, listener: LoopListener & { onStart?(start: { conversation_id: string; model: string }): void }, options: { signal?: AbortSignal; stream?: boolean } = {}): Promise<ChatAnswer> {
    if (typeof input.message !== 'string' || input.message.trim() === '') throw refuse.invalidRequest('Send {"message": "…"} with the text to say to the model.');
    if (input.message.length > MAX_MESSAGE_CHARS) throw refuse.invalidRequest(`The message is longer than ${MAX_MESSAGE_CHARS} characters.`);
    const store = this.options.store.conversations;
    const existing = input.conversationId === undefined ? undefined : this.conversation(input.conversationId, asker);
    const provider = this.provider();
    const model = await this.model(provider, input.model ?? existing?.model, options.signal);
    const history: ChatMessage[] = existing ? store.messages(existing.id).map((m) => m.message as unknown as ChatMessage) : [];
    const id = existing?.id ?? `cv_${Date.now().toString(36)}${randomUUID().slice(0, 8)}`;
    // What is kept of a conversation is redacted like the history; the model is sent this turn whole (see runCall).
    const redactor = this.options.executor.redactor;
    if (!existing) store.create({ id, client: asker.client, title: titleOf(redactor.text(input.message)), model });
    const user: ChatMessage = { role: 'user', content: input.message };
    store.append(id, model, [{ message: redactor.redact(user) }]);
    listener.onStart?.({ conversation_id: id, model });

    const result = await this.runTurn({
      provider,
      executor: this.options.executor,
      caller: { client: asker.client, owner: asker.owner, via: `llm:${model}` },
      request: { model, messages: [...history, user], tools: this.tools(asker) },
      ...this.loopSettings(),
      ...this.toolChoice(asker),
      listener,
      ...(options.signal && { signal: options.signal }),
      ...(options.stream && { stream: true }),
    });
    const answer: ChatAnswer = {
      conversation_id: id,
      answer: result.answer,
      steps: result.steps,
      model: result.final.model || model,
      timings: result.timings,
      usage: result.usage,
      stopped_at_step_limit: result.stoppedAtLimit,
      tool_mode: result.toolMode,
      ...(result.toolModeReason && { tool_mode_reason: result.toolModeReason }),
      ...(result.reasoning && { reasoning: result.reasoning }),
      ...(result.context && { context: result.context }),
      ...(result.offered && { tools_offered: result.offered }),
    };
    const { conversation_id: _id, stopped_at_step_limit: _limit, ...meta } = answer;
    store.append(
      id,
      model,
      result.added.map((message, i) => ({ message: redactor.redact(message), ...(i === result.added.length - 1 && { meta: redactor.redact(meta) }) })),
    );
    return answer;
  }

  /** Runs one turn's tool loop (every door's turns come through here), stoppable by cancelClient. */
  async runTurn(options: LoopOptions): Promise<LoopResult> {
    const stop = new AbortController();
    const turn = { caller: options.caller, started: Date.now(), stop };
    this.#turns.add(turn);
    try {
      return await runToolLoop({ ...options, signal: options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal });
    } finally {
      this.#turns.delete(turn);
    }
  }

  /**
   * Security: a client's token was revoked at `revokedAt` (epoch ms): its turns begun until then stop — no further
   * model request, no further tool call. Answers how many.
   */
  cancelClient(client: string, revokedAt: number, why: string): number {
    const begun = [...this.#turns].filter((t) => !t.caller.owner && t.caller.client === client && t.started <= revokedAt);
    for (const turn of begun) turn.stop.abort(refuse.callCancelled(why));
    return begun.length;
  }

  /** A conversation this caller may see (its own; the owner sees all), or 404 as if it did not exist. */
  conversation(id: string, asker: Asker): ConversationSummary {
    const found = this.options.store.conversations.get(id);
    if (!found || (!asker.owner && found.client !== asker.client)) {
      throw refuse.conversationNotFound(id);
    }
    return found;
  }

  conversations(asker: Asker, limit: number): ConversationSummary[] {
    return this.options.store.conversations.list(asker.owner ? undefined : asker.client, limit);
  }

  messages(id: string, asker: Asker): { conversation: ConversationSummary; messages: StoredMessage[] } {
    const conversation = this.conversation(id, asker);
    return { conversation, messages: this.options.store.conversations.messages(id) };
  }

  deleteConversation(id: string, asker: Asker): void {
    this.conversation(id, asker);
    this.options.store.conversations.delete(id);
  }
}

function titleOf(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

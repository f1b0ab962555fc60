import { DEFAULT_LLM_MAX_CONTEXT } from '../config/config.js';
import type { ChatMessage, ToolSpec } from './types.js';

/** Ollama's context window when a request sets no `num_ctx`: it cuts the front of a longer prompt — the tools. */
export const OLLAMA_DEFAULT_WINDOW = 4096;
export const DEFAULT_MAX_CONTEXT = DEFAULT_LLM_MAX_CONTEXT;
/** Room left for the answer when the caller sets no limit on its length. */
const ANSWER_ROOM = 1024;

/**
 * A request's size in tokens, estimated from above: one token per four characters of its messages and tools as
 * JSON (tokenisers average three to four on English and JSON), and one per character outside ASCII (CJK text and
 * emoji take one or more tokens each).
 */
export function estimateTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
  return textTokens(JSON.stringify(messages)) + (tools.length > 0 ? textTokens(JSON.stringify(tools)) : 0);
}

function textTokens(text: string): number {
  let wide = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) wide++;
  return Math.ceil((text.length - wide) / 4) + wide;
}

/** What the owner sees of the window in the answer's metadata: why a tool was left out, what was asked for. */
export interface WindowReport {
  estimated_tokens: number;
  /** The `num_ctx` sent; absent when the default window holds the request. */
  num_ctx?: number;
  /** The largest window allowed: the model's own context length and `llm.max_context`, whichever is smaller. */
  limit: number;
  tools_offered: number;
  /** Tools not sent because the request would not fit the limit with them. */
  tools_left_out: string[];
}

export interface WindowPlan {
  tools: ToolSpec[];
  numCtx?: number;
  report: WindowReport;
}

export interface WindowInput {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  /** The model's context length, when the server said. */
  contextLength?: number | undefined;
  maxContext: number;
  /** The caller's cap on the answer (num_predict / max_tokens). */
  answerTokens?: number | undefined;
  /** A `num_ctx` the caller set itself: never lowered. */
  requested?: number | undefined;
  /** Tools that are kept as long as any is (the caller's own, those already used): least important last. */
  keepOrder: (tools: readonly ToolSpec[]) => ToolSpec[];
}

/**
 * The window an Ollama request needs: none when the default holds it; else the next power of two that holds it
 * (so a growing conversation does not make Ollama reload the model every turn), within the limit. When even the
 * limit cannot hold it, the least relevant tools are left out, rather than let the server cut the front silently.
 */
export function planWindow(input: WindowInput): WindowPlan {
  const limit = Math.min(input.contextLength ?? Infinity, input.maxContext);
  const room = Math.max(input.answerTokens ?? 0, ANSWER_ROOM);
  let tools = [...input.tools];
  let estimated = estimateTokens(input.messages, tools);
  const left: string[] = [];
  if (estimated + room > limit && tools.length > 0) {
    const ordered = input.keepOrder(tools);
    const base = estimateTokens(input.messages, []);
    // Keep the most relevant tools that fit, in the order given.
    const sizes = ordered.map((tool) => textTokens(JSON.stringify(tool)) + 1);
    let total = base;
    const kept = new Set<ToolSpec>();
    ordered.forEach((tool, i) => {
      if (total + sizes[i]! + room <= limit) {
        total += sizes[i]!;
        kept.add(tool);
      } else {
        left.push(tool.function.name);
      }
    });
    tools = tools.filter((tool) => kept.has(tool));
    estimated = estimateTokens(input.messages, tools);
  }
  const needed = estimated + room;
  let numCtx: number | undefined;
  if (needed > OLLAMA_DEFAULT_WINDOW || (input.requested ?? 0) > OLLAMA_DEFAULT_WINDOW) {
    numCtx = Math.min(limit, nextPowerOfTwo(needed));
    if (input.requested !== undefined && input.requested > numCtx) numCtx = input.requested;
  }
  return {
    tools,
    ...(numCtx !== undefined && { numCtx }),
    report: { estimated_tokens: estimated, ...(numCtx !== undefined && { num_ctx: numCtx }), limit, tools_offered: tools.length, tools_left_out: left },
  };
}

function nextPowerOfTwo(n: number): number {
  let p = OLLAMA_DEFAULT_WINDOW;
  while (p < n) p *= 2;
  return p;
}

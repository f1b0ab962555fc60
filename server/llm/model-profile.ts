import { GatewayError } from '../errors.js';
import type { LlmProvider, ModelDetails } from './types.js';

/** How a model is given tools: in the request (`tools`), or described in the system prompt and read from its text. */
export type ToolMode = 'native' | 'prompted';

/** What Pincer knows of one model on one LLM server. */
export interface ModelProfile {
  toolMode: ToolMode;
  /** Why the model runs in prompted mode, in words the owner can read. */
  reason?: string;
  /** The model's own context length (Ollama's `<arch>.context_length`), when the server says. */
  contextLength?: number;
}

const REMEMBER_MS = 30 * 60_000;
/** A server that could not describe the model is asked again soon, not on every turn. */
const RETRY_DESCRIBE_MS = 60_000;
const MAX_MODELS = 500;

/**
 * The tool mode and context length of each model, remembered per server and model: a model whose template has no
 * tool support (Ollama lists no `tools` capability), or whose server refused `tools` once, is given its tools in the
 * prompt from then on instead of ending every turn with an error.
 */
export class ModelProfiles {
  readonly #known = new Map<string, { profile: ModelProfile; until: number }>();

  /** The model's profile; asks the server once (Ollama's /api/show) and remembers the answer. */
  async profile(provider: LlmProvider, model: string, signal?: AbortSignal, now = Date.now()): Promise<ModelProfile> {
    const key = keyOf(provider, model);
    const known = this.#known.get(key);
    if (known && known.until > now) return known.profile;
    if (!provider.describe) return { toolMode: 'native' };
    let details: ModelDetails | undefined;
    try {
      details = await provider.describe(model, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      // Not every server describes models; the chat request itself will say what is wrong, if anything.
      this.#remember(key, { toolMode: 'native' }, now + RETRY_DESCRIBE_MS);
      return { toolMode: 'native' };
    }
    const lacksTools = details.capabilities !== undefined && details.capabilities.length > 0 && !details.capabilities.includes('tools');
    const profile: ModelProfile = {
      toolMode: lacksTools ? 'prompted' : 'native',
      ...(lacksTools && { reason: `${model} has no tool support in its chat template, so its tools are described in the prompt.` }),
      ...(details.contextLength !== undefined && { contextLength: details.contextLength }),
    };
    this.#remember(key, profile, now + REMEMBER_MS);
    return profile;
  }

  /** The server refused `tools` for this model: prompted mode from now on. */
  markPrompted(provider: LlmProvider, model: string, reason: string, now = Date.now()): ModelProfile {
    const key = keyOf(provider, model);
    const profile: ModelProfile = { ...this.#known.get(key)?.profile, toolMode: 'prompted', reason };
    this.#remember(key, profile, now + REMEMBER_MS);
    return profile;
  }

  #remember(key: string, profile: ModelProfile, until: number): void {
    this.#known.delete(key);
    this.#known.set(key, { profile, until });
    if (this.#known.size > MAX_MODELS) this.#known.delete(this.#known.keys().next().value!);
  }
}

function keyOf(provider: LlmProvider, model: string): string {
  return `${provider.api}\u0000${provider.baseUrl}\u0000${model}`;
}

/**
 * Whether an upstream error is a server refusing tools for this model, and why, in the owner's words. Ollama:
 * 400 `registry.ollama.ai/library/<model> does not support tools`; llama.cpp's server started without `--jinja`:
 * `tools param requires --jinja flag`; vLLM without a tool parser: `"auto" tool choice requires
 * --enable-auto-tool-choice and --tool-call-parser to be set`; others say a model does not support function calling.
 */
export function toolRefusal(error: unknown): string | undefined {
  if (!(error instanceof GatewayError) || error.status !== 400) return undefined;
  const message = error.message;
  if (/does not support tools|tools param requires --jinja|tool[_ ]choice requires --enable-auto-tool-choice|(does not|doesn't) support (function|tool) call|tools? (are|is) not supported/i.test(message)) {
    return `The LLM server refused tools for this model (${message.replace(/^The LLM server answered \d+: /, '').slice(0, 200)}), so its tools are described in the prompt.`;
  }
  return undefined;
}

/**
 * Tool calls that small local models write as text instead of as native `tool_calls`: when a chat template or a
 * server does not turn the model's markup into a call, the markup arrives as the answer's text. The recovery
 * module finds those calls, each in the shape of the model family that writes it.
 */

/** The family shape a call was written in; recorded beside the call in the history. */
export type CallShape =
  | 'hermes' // Hermes 2/3, Qwen 2.5: <tool_call>{"name", "arguments"}</tool_call>
  | 'qwen3-coder' // Qwen3-Coder: <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>
  | 'llama-json' // Llama 3.1/3.2/3.3: a bare {"name", "parameters"} object
  | 'llama-python-tag' // Llama 3.1: <|python_tag|>{"name", "parameters"} (or a pythonic call after the tag)
  | 'llama-function-tag' // Llama 3.1 custom format: <function=NAME>{json}</function>
  | 'pythonic' // Llama 3.2 / 4: [f(a="x"), g(b=1)]
  | 'lfm2' // LFM2: <|tool_call_start|>[f(a="x")]<|tool_call_end|>
  | 'tool-call-token' // Phi-4-mini, Granite 3.x: <|tool_call|>[{"name", "arguments"}]<|/tool_call|>
  | 'mistral' // Mistral: [TOOL_CALLS][{"name", "arguments"}] (and the newer [TOOL_CALLS]name[ARGS]{…})
  | 'deepseek' // DeepSeek V3 / R1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME …
  | 'gemma-tool-code' // Gemma: ```tool_code\nf(a="x")\n```
  | 'glm' // GLM-4.5/4.6: <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>
  | 'fenced-json' // any model: ```json {"name", "arguments"} ```
  | 'openai-text' // any model: {"tool_calls": [{"function": {"name", "arguments"}}]} written as text
  | 'prompted'; // Pincer's own declared reply format in prompted mode (the Hermes shape)

/** One call found in a model's text. */
export interface RecoveredCall {
  /** The tool, resolved to the offered name it matches (see NameResolver). */
  name: string;
  /** The name exactly as the model wrote it, when it differs from `name`. */
  writtenName?: string;
  /**
   * The arguments: an object when the text held one that parses, otherwise the text as written (argument repair
   * runs later, on native and recovered calls alike, and refuses what it cannot mend).
   */
  arguments: unknown;
  shape: CallShape;
}

/** The model's text with the calls taken out. */
export interface Recovery {
  calls: RecoveredCall[];
  /** The prose around the calls, markup removed, trimmed; '' when the reply was only calls. */
  text: string;
}

/**
 * Maps a name the model wrote to the one offered tool it means, or undefined: only offered tools ever become calls.
 * (Implemented by names.ts: exact name, else a `functions.` / `default_api.` / `tools.` prefix, case, `-` vs `_`,
 * camelCase vs snake_case, and only when exactly one offered tool matches.)
 */
export type NameResolver = (written: string) => string | undefined;

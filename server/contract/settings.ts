/** The owner's settings on the wire: `GET /settings`, `PATCH /settings`, `POST /settings/history/preview`. */

/** The API the LLM bridge speaks: Ollama's own `/api/chat`, or any `/v1/chat/completions`. */
export type LlmApi = 'ollama' | 'openai';

/** How long the call history is kept, and what the next pruning would remove. */
export interface HistoryRetention {
  /** 0: no age limit. */
  retention_days: number;
  /** null: no row limit. */
  max_rows: number | null;
  /** False while calls outside the limits wait for the owner to allow their pruning (an older history, lowered limits). */
  pruning_confirmed: boolean;
  /** Finished calls outside the retention now: what the next pruning deletes. */
  prunable: number;
  /** Calls deleted since the gateway started. */
  pruned: number;
  last_pruned_at: string | null;
}

/** `GET /settings` (and the answer to every PATCH). */
export interface Settings {
  paused: boolean;
  address: string;
  data_dir: string;
  roots: string[];
  /** With no roots, when the working folder was not taken as one at start: why (`/`, the home folder, Pincer's own). */
  roots_notice?: string;
  approval_timeout_s: number;
  /**
   * `max_context`: the largest context window (num_ctx, tokens) asked of Ollama. `max_tools`: the tools offered per
   * turn besides search_tools (Chat and the proxies); null: worked out from the model's window.
   */
  llm: { base_url: string; model: string | null; api: LlmApi; max_context: number; max_tools: number | null };
  /** Keys set by an environment variable or flag, with where they came from; the dashboard cannot change them. */
  locked: Partial<Record<string, string>>;
  /** The OS sandbox of run_shell and run_python here; `none` means the policy alone. */
  sandbox: { kind: string; detail: string };
  /** How long the call history is kept, and what the next pruning would remove. */
  history?: HistoryRetention;
  /** The Ollama-compatible proxy without a token: on or off, and the client such requests act as. */
  ollama_proxy: { tokenless: boolean; client: string };
  /** Whether imported MCP servers may ask to use the configured model (each request still asks the owner). */
  mcp_sampling: boolean;
}

/** The history's limits as config.json spells them and PATCH /settings takes them; max_rows null: no row limit. */
export interface HistoryLimits {
  retention_days: number;
  max_rows: number | null;
}

/** `PATCH /settings`: any of these; a key held by an environment variable or flag is refused. */
export type SettingsPatch = Partial<Pick<Settings, 'paused' | 'roots' | 'approval_timeout_s'>> & {
  llm?: Partial<Settings['llm']>;
  history?: Partial<HistoryLimits>;
  history_pruning_confirmed?: boolean;
  ollama_proxy?: Partial<Settings['ollama_proxy']>;
  mcp_sampling?: boolean;
};

/** `POST /settings/history/preview`: what limits not yet saved would delete. */
export interface HistoryPreview extends HistoryLimits {
  /** Calls outside these limits now. */
  prunable: number;
  /** Of those, the calls the saved limits keep: saving then holds pruning back until the owner allows it. */
  newly_prunable: number;
  /** Chat conversations the saved limits keep and these would delete: saving holds pruning back for them too. */
  newly_prunable_conversations: number;
}

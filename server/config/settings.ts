import { isAbsolute, join } from 'node:path';
import { GatewayError, refuse } from '../errors.js';
import { writeConfigFile } from './config-file.js';
import { ownFolders } from './own-folders.js';
import { ConfigError, DEFAULT_LLM_MAX_CONTEXT, readConfigObject, settingParsers, type ConfigSource, type LlmApi, type PincerConfig, type Source } from './config.js';
import { isPlainObject } from '../util/json.js';

/** GET /settings (and the answer to every PATCH). */
export interface SettingsView {
  paused: boolean;
  address: string;
  data_dir: string;
  roots: string[];
  /** With no roots, when the working folder was not taken as one at start: why (`/`, the home folder, Pincer's own). */
  roots_notice?: string;
  approval_timeout_s: number;
  /** `max_context`: the largest context window asked of Ollama (tokens). */
  llm: { base_url: string; model: string | null; api: LlmApi; max_context: number; max_tools: number | null };
  /** Each setting held by an environment variable or a flag, with its name: the dashboard cannot change those. */
  locked: Partial<Record<SettingKey, string>>;
  /** The OS sandbox run_shell and run_python run in here (`none`: the policy alone), read-only. */
  sandbox: { kind: string; detail: string };
  /** The history's retention (config.json `history`) and whether the owner has allowed it to prune. */
  history?: unknown;
  /** The Ollama-compatible proxy without a token: whether it is on, and the client such requests act as. */
  ollama_proxy: { tokenless: boolean; client: string };
  /** Whether imported MCP servers may ask to use the configured model (each request still asks the owner). */
  mcp_sampling: boolean;
}

/** The history limits as config.json spells them; null: no row limit. */
export interface HistoryLimits {
  retention_days: number;
  max_rows: number | null;
}

/** POST /settings/history/preview: what the next pruning would delete under limits not yet saved. */
export interface HistoryPreview extends HistoryLimits {
  /** Calls outside these limits right now. */
  prunable: number;
  /** Of those, the calls the saved limits keep: saving holds pruning back until the owner allows it (if any). */
  newly_prunable: number;
  /** Chat conversations the saved limits keep and these would delete: saving holds pruning back for them too. */
  newly_prunable_conversations: number;
}

/** The settings the dashboard may change, spelt as in config.json. */
export type SettingKey = 'roots' | 'approval_timeout_s' | 'llm.base_url' | 'llm.model' | 'llm.api' | 'llm.max_context' | 'llm.max_tools' | 'history' | 'ollama_proxy';
const SETTING_KEYS: readonly SettingKey[] = ['roots', 'approval_timeout_s', 'llm.base_url', 'llm.model', 'llm.api', 'llm.max_context', 'llm.max_tools', 'history', 'ollama_proxy'];
const BODY_KEYS = ['paused', 'roots', 'approval_timeout_s', 'llm', 'history', 'history_pruning_confirmed', 'ollama_proxy', 'mcp_sampling'] as const;
const LLM_BODY_KEYS = ['base_url', 'model', 'api', 'max_context', 'max_tools'] as const;
const HISTORY_BODY_KEYS = ['retention_days', 'max_rows'] as const;
const OLLAMA_BODY_KEYS = ['tokenless', 'client'] as const;
/** The objects of a PATCH body whose keys are checked one by one. */
const NESTED_KEYS = { llm: LLM_BODY_KEYS, history: HISTORY_BODY_KEYS, ollama_proxy: OLLAMA_BODY_KEYS } as const;

/** What the settings act on; the gateway wires these to the parts that hold each value. */
export interface SettingsHooks<Checked = unknown> {
  paused(): boolean;
  setPaused(paused: boolean): void;
  /** Checks folders as roots (they exist, are folders, are not Pincer's own folders); throws naming the problem. */
  checkRoots(roots: string[]): Checked;
  /** Puts roots that passed checkRoots to use at once. */
  applyRoots(checked: Checked): void;
  setApprovalTimeoutS(seconds: number): void;
  /** The address the gateway answers on. */
  address(): string;
  /** The OS sandbox of run_shell and run_python here. */
  sandbox(): { kind: string; detail: string };
  /** The history's retention, for the view. */
  history?(): unknown;
  /** The owner allows (true) or withholds (false) pruning of the history; kept in the database. */
  setHistoryPruningConfirmed?(confirmed: boolean): void;
  /**
   * Puts new history limits in force at once. `confirmed` is the owner's word given with them; without it, limits
   * that would delete calls the old ones keep withhold pruning until the owner allows it.
   */
  setHistoryLimits?(limits: PincerConfig['history'], confirmed: boolean | undefined): void;
  /** What the next pruning would delete under limits not yet saved. */
  previewHistory?(limits: PincerConfig['history']): { prunable: number; newly_prunable: number; newly_prunable_conversations: number };
  /**
   * The clients the token-less Ollama proxy may act as: the named clients with a working token (never the default
   * client, whose token is the generated one).
   */
  clientNames?(): string[];
  /** After a change was applied, whoever changed it (dashboard, tray): so everything showing settings hears of it. */
  changed?(keys: string[], view: SettingsView): void;
}

/** A PATCH that passed validation: each value parsed, nothing applied yet. */
interface Change<Checked> {
  paused?: boolean;
  roots?: { list: string[]; checked: Checked };
  approval_timeout_s?: number;
  llm?: { base_url?: string; model?: string | null; api?: LlmApi; max_context?: number | null; max_tools?: number | null };
  history?: { retention_days?: number; max_rows?: number | null };
  history_pruning_confirmed?: boolean;
  ollama_proxy?: { tokenless?: boolean; client?: string };
  mcp_sampling?: boolean;
}

/**
 * The owner's run-time settings. Values are checked with the same parsers start-up uses; a change is saved to
 * config.json (so it survives a restart) and then put to use at once. `paused` lives in the database, as before.
 * A value set by an environment variable or a flag wins over config.json at the next start, so changing it here
 * would be undone silently: such keys are refused, naming where they are set.
 */
export class GatewaySettings<Checked = unknown> {
  readonly #file: string;

  constructor(
    private readonly config: PincerConfig,
    private readonly hooks: SettingsHooks<Checked>,
  ) {
    this.#file = join(config.dataDir, 'config.json');
    // The gateway's config shows the live values; its sources map may be shared with a copy the caller kept.
    config.sources = { ...config.sources };
  }

  view(): SettingsView {
    const { config } = this;
    const locked: SettingsView['locked'] = {};
    for (const key of SETTING_KEYS) {
      const source = config.sources[key];
      if (source && source.kind !== 'file') locked[key] = source.name;
    }
    return {
      paused: this.hooks.paused(),
      address: this.hooks.address(),
      data_dir: config.dataDir,
      roots: [...config.roots],
      ...(config.rootsNotice && { roots_notice: config.rootsNotice }),
      approval_timeout_s: config.approvalTimeoutS,
      llm: { base_url: config.llm.baseUrl, model: config.llm.model ?? null, api: config.llm.api, max_context: config.llm.maxContext ?? DEFAULT_LLM_MAX_CONTEXT, max_tools: config.llm.maxTools ?? null },
      locked,
      sandbox: this.hooks.sandbox(),
      ...(this.hooks.history && { history: this.hooks.history() }),
      ollama_proxy: { ...config.ollamaProxy },
      mcp_sampling: config.mcpSampling,
    };
  }

  /**
   * What the next pruning would delete under the history limits in `body` (the shape PATCH takes under "history";
   * a key left out keeps its saved value), without changing anything: the dashboard shows it before a save.
   */
  previewHistory(body: unknown): HistoryPreview {
    if (!isPlainObject(body)) throw refuse.badRequest('Send a JSON object like {"retention_days": 30, "max_rows": 100000}.');
    const unknown = Object.keys(body).filter((k) => !(HISTORY_BODY_KEYS as readonly string[]).includes(k));
    if (unknown.length > 0) throw refuse.badRequest(`Unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the keys are retention_days and max_rows.`);
    const problems: { key: string; message: string }[] = [];
    const change = this.#parseHistory(body, problems);
    if (problems.length > 0) throw refuse.badRequest(`Invalid history limits: ${problems.map((p) => p.message).join('; ')}.`, { errors: problems });
    const limits = this.#historyLimits(change ?? {});
    const counts = this.hooks.previewHistory?.(limits) ?? { prunable: 0, newly_prunable: 0, newly_prunable_conversations: 0 };
    return { retention_days: limits.retentionDays, max_rows: limits.maxRows ?? null, ...counts };
  }

  /**
   * Validates every key of a PATCH body before anything changes, saves the config.json keys, then applies all of it.
   * Answers which keys changed; throws a GatewayError (400 bad value, 409 locked or unreadable config.json, 500 not
   * saved) and then nothing has changed.
   */
  update(body: unknown): { view: SettingsView; changed: string[] } {
    const change = this.#parse(body);
    const changed = Object.keys(change);
    if (change.roots || change.approval_timeout_s !== undefined || change.llm || change.history || change.ollama_proxy || change.mcp_sampling !== undefined) this.#save(change);

    const { config, hooks } = this;
    if (change.roots) {
      hooks.applyRoots(change.roots.checked);
      config.roots = change.roots.list;
      // The owner chose: the working folder's story no longer applies.
      delete config.rootsNotice;
    }
    if (change.approval_timeout_s !== undefined) {
      hooks.setApprovalTimeoutS(change.approval_timeout_s);
      config.approvalTimeoutS = change.approval_timeout_s;
    }
    if (change.llm) {
      const { base_url, model, api, max_context, max_tools } = change.llm;
      config.llm = {
        baseUrl: base_url ?? config.llm.baseUrl,
        model: model === undefined ? config.llm.model : (model ?? undefined),
        api: api ?? config.llm.api,
        maxContext: max_context === undefined ? config.llm.maxContext : (max_context ?? undefined),
        maxTools: max_tools === undefined ? config.llm.maxTools : (max_tools ?? undefined),
      };
    }
    if (change.history) {
      config.history = this.#historyLimits(change.history);
      hooks.setHistoryLimits?.(config.history, change.history_pruning_confirmed);
    }
    // Read by the Ollama routes on every request: the next one follows the new setting.
    if (change.ollama_proxy) config.ollamaProxy = { ...config.ollamaProxy, ...change.ollama_proxy };
    if (change.mcp_sampling !== undefined) config.mcpSampling = change.mcp_sampling;
    for (const key of this.#fileKeys(change)) config.sources[key] = { kind: 'file' };
    // A cleared model is no longer in config.json: it is back to its default.
    if (change.llm?.model === null) delete config.sources['llm.model'];
    if (change.llm?.max_context === null) delete config.sources['llm.max_context'];
    if (change.llm?.max_tools === null) delete config.sources['llm.max_tools'];
    if (change.paused !== undefined) hooks.setPaused(change.paused);
    // With new limits, the owner's word went with them (above).
    if (change.history_pruning_confirmed !== undefined && !change.history) hooks.setHistoryPruningConfirmed?.(change.history_pruning_confirmed);
    const view = this.view();
    if (changed.length > 0) hooks.changed?.(changed, view);
    return { view, changed };
  }

  #parse(body: unknown): Change<Checked> {
    if (!isPlainObject(body)) throw refuse.badRequest(`Send a JSON object with one or more of ${BODY_KEYS.join(', ')}.`);
    const unknown = Object.keys(body).filter((k) => !(BODY_KEYS as readonly string[]).includes(k));
    for (const [key, known] of Object.entries(NESTED_KEYS)) {
      const nested = body[key];
      if (isPlainObject(nested)) unknown.push(...Object.keys(nested).filter((k) => !(known as readonly string[]).includes(k)).map((k) => `${key}.${k}`));
    }
    if (unknown.length > 0) {
      throw refuse.badRequest(
        `Unknown setting${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the settings are ` +
          'paused, roots, approval_timeout_s, llm (base_url, model, api, max_context, max_tools), history (retention_days, max_rows), ' +
          'history_pruning_confirmed, ollama_proxy (tokenless, client) and mcp_sampling.',
        { unknown },
      );
    }
    if (Object.keys(body).length === 0) throw refuse.badRequest(`Nothing to change: send one or more of ${BODY_KEYS.join(', ')}.`);

    // Locked before bad values: fixing the value would not help.
    const given: SettingKey[] = [];
    for (const key of ['roots', 'approval_timeout_s', 'history', 'ollama_proxy'] as const) if (body[key] !== undefined) given.push(key);
    if (isPlainObject(body.llm)) for (const key of LLM_BODY_KEYS) if (body.llm[key] !== undefined) given.push(`llm.${key}`);
    const locked = given.flatMap((key) => {
      const source = this.config.sources[key];
      return source && source.kind !== 'file' ? [{ key, source }] : [];
    });
    if (locked.length > 0) {
      throw new GatewayError(
        'SETTING_LOCKED',
        409,
        `${locked.map(({ key, source }) => `${key} is set by ${describeSource(source)}`).join('; ')}, which wins over ` +
          'config.json; the dashboard cannot change it. Change or remove it there and restart Pincer.',
        { locked: Object.fromEntries(locked.map(({ key, source }) => [key, source.name])) },
      );
    }

    const change: Change<Checked> = {};
    const problems: { key: string; message: string }[] = [];
    const parse = <T>(key: string, run: () => T): T | undefined => {
      try {
        return run();
      } catch (error) {
        if (error instanceof ConfigError && error.problem) problems.push({ key, message: `${error.problem.key} ${error.problem.text}` });
        else problems.push({ key, message: `${key}: ${(error as Error).message}` });
        return undefined;
      }
    };
    const from: Source['from'] = 'PATCH /settings';

    if (body.paused !== undefined) {
      if (typeof body.paused === 'boolean') change.paused = body.paused;
      else problems.push({ key: 'paused', message: `paused must be true or false, got ${JSON.stringify(body.paused)}` });
    }
    if (body.history_pruning_confirmed !== undefined) {
      if (typeof body.history_pruning_confirmed === 'boolean') change.history_pruning_confirmed = body.history_pruning_confirmed;
      else problems.push({ key: 'history_pruning_confirmed', message: `history_pruning_confirmed must be true or false, got ${JSON.stringify(body.history_pruning_confirmed)}` });
    }
    if (body.mcp_sampling !== undefined) {
      const value = parse('mcp_sampling', () => settingParsers.mcp_sampling({ value: body.mcp_sampling, from }));
      if (value !== undefined) change.mcp_sampling = value;
    }
    if (body.roots !== undefined) {
      const roots = parse('roots', () => this.#parseRoots(body.roots));
      if (roots) change.roots = roots;
    }
    if (body.approval_timeout_s !== undefined) {
      change.approval_timeout_s = parse('approval_timeout_s', () => settingParsers.approval_timeout_s({ value: body.approval_timeout_s, from }));
      if (change.approval_timeout_s === undefined) delete change.approval_timeout_s;
    }
    if (body.llm !== undefined) {
      if (!isPlainObject(body.llm)) {
        problems.push({ key: 'llm', message: `llm must be an object like {"base_url": "http://127.0.0.1:11434", "model": "llama3.1", "api": "ollama"}` });
      } else {
        const llm: NonNullable<Change<Checked>['llm']> = {};
        const { base_url, model, api, max_context, max_tools } = body.llm;
        if (base_url !== undefined) llm.base_url = parse('llm.base_url', () => settingParsers['llm.base_url']({ value: base_url, from }));
        // null clears the model: the bridge then uses whatever the LLM server offers first.
        if (model !== undefined) llm.model = model === null ? null : parse('llm.model', () => settingParsers['llm.model']({ value: model, from }));
        if (api !== undefined) llm.api = parse('llm.api', () => settingParsers['llm.api']({ value: api, from }));
        // null: back to the default window cap.
        if (max_context !== undefined) llm.max_context = max_context === null ? null : parse('llm.max_context', () => settingParsers['llm.max_context']({ value: max_context, from }));
        // null: worked out from the model's window again.
        if (max_tools !== undefined) llm.max_tools = max_tools === null ? null : parse('llm.max_tools', () => settingParsers['llm.max_tools']({ value: max_tools, from }));
        if (Object.keys(llm).length > 0) change.llm = llm;
      }
    }
    if (body.history !== undefined) {
      const history = this.#parseHistory(body.history, problems);
      if (history && Object.keys(history).length > 0) change.history = history;
    }
    if (body.ollama_proxy !== undefined) {
      if (!isPlainObject(body.ollama_proxy)) {
        problems.push({ key: 'ollama_proxy', message: 'ollama_proxy must be an object like {"tokenless": true, "client": "ollama-app"}' });
      } else {
        const proxy: NonNullable<Change<Checked>['ollama_proxy']> = {};
        const { tokenless, client } = body.ollama_proxy;
        if (tokenless !== undefined) proxy.tokenless = parse('ollama_proxy.tokenless', () => settingParsers['ollama_proxy.tokenless']({ value: tokenless, from }));
        if (client !== undefined) proxy.client = parse('ollama_proxy.client', () => this.#parseOllamaClient(client));
        if (proxy.tokenless === undefined) delete proxy.tokenless;
        if (proxy.client === undefined) delete proxy.client;
        if (Object.keys(proxy).length > 0) change.ollama_proxy = proxy;
      }
    }
    if (problems.length > 0) {
      throw refuse.badRequest(`Invalid settings: ${problems.map((p) => p.message).join('; ')}. Nothing was changed.`, { errors: problems });
    }
    return change;
  }

  /** `history` of a PATCH (or of a preview): each limit checked with start-up's parser; max_rows null lifts the row limit. */
  #parseHistory(value: unknown, problems: { key: string; message: string }[]): Change<Checked>['history'] {
    if (!isPlainObject(value)) {
      problems.push({ key: 'history', message: 'history must be an object like {"retention_days": 90, "max_rows": 100000}' });
      return undefined;
    }
    const from: Source['from'] = 'PATCH /settings';
    const history: NonNullable<Change<Checked>['history']> = {};
    for (const key of HISTORY_BODY_KEYS) {
      const raw = value[key];
      if (raw === undefined || (key === 'max_rows' && raw === null)) {
        if (raw === null) history.max_rows = null;
        continue;
      }
      try {
        history[key] = settingParsers[`history.${key}`]({ value: raw, from });
      } catch (error) {
        const problem = error instanceof ConfigError ? error.problem : undefined;
        problems.push({ key: `history.${key}`, message: problem ? `${problem.key} ${problem.text}` : `history.${key}: ${(error as Error).message}` });
      }
    }
    return history;
  }

  /** The limits in force once `change` is applied. */
  #historyLimits(change: NonNullable<Change<Checked>['history']>): PincerConfig['history'] {
    const { history } = this.config;
    return {
      retentionDays: change.retention_days ?? history.retentionDays,
      maxRows: change.max_rows === undefined ? history.maxRows : (change.max_rows ?? undefined),
    };
  }

  /**
   * Security: token-less requests act as a client the owner made (or the one already set). A mistyped name would
   * quietly become a client of its own; the default client would hand the generated token's tools (often every
   * tool) to any program on this machine.
   */
  #parseOllamaClient(value: unknown): string {
    const name = settingParsers['ollama_proxy.client']({ value, from: 'PATCH /settings' });
    const current = this.config.ollamaProxy.client;
    const names = this.hooks.clientNames?.() ?? [];
    if (name !== current && !names.includes(name)) {
      const choices = [...names, current].map((n) => `"${n}"`).join(', ');
      throw new Error(`must be a named client (${choices}; create one under Tokens first), got ${JSON.stringify(name)}`);
    }
    return name;
  }

  /** Roots as config.json holds them (absolute, as given) and as the path guard will use them (checked, real). */
  #parseRoots(value: unknown): NonNullable<Change<Checked>['roots']> {
    // A string would be split like PINCER_ROOTS; the dashboard sends a list, and a list is what gets saved. An
    // empty list shares no folder.
    if (!Array.isArray(value)) throw new Error(`must be a list of folders, got ${JSON.stringify(value)}`);
    // Relative to what? The gateway's working directory is not something the owner sees from the dashboard.
    const relative = value.find((p) => typeof p === 'string' && p !== '' && !isAbsolute(p));
    if (relative !== undefined) throw new Error(`"${relative}" is not an absolute path; give each folder's full path`);
    const list = settingParsers.roots({ value, from: 'PATCH /settings' }, '/', ownFolders(this.config.dataDir));
    let checked: Checked;
    try {
      checked = this.hooks.checkRoots(list);
    } catch (error) {
      throw new Error((error as Error).message.replace(/\.$/, ''));
    }
    return { list, checked };
  }

  /** Writes the changed keys into config.json, keeping every other key (even ones this version does not know). */
  #save(change: Change<Checked>): void {
    let file: Record<string, unknown>;
    try {
      file = readConfigObject(this.#file);
    } catch (error) {
      const problem =
        error instanceof ConfigError
          ? error.message.replace(/^Invalid configuration: /, '')
          : `${this.#file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`;
      // A file we cannot parse is never overwritten with our guess of it: the owner's hand edits would be lost.
      throw new GatewayError('CONFIG_FILE_INVALID', 409, `${problem} Fix or remove it by hand, then try again; nothing was changed.`);
    }
    for (const key of ['llm', 'history', 'ollama_proxy'] as const) {
      if (file[key] !== undefined && !isPlainObject(file[key]) && change[key]) {
        throw new GatewayError('CONFIG_FILE_INVALID', 409, `"${key}" in ${this.#file} is not an object. Fix it by hand, then try again; nothing was changed.`);
      }
    }
    const next: Record<string, unknown> = { ...file };
    if (change.roots) next.roots = change.roots.list;
    if (change.approval_timeout_s !== undefined) next.approval_timeout_s = change.approval_timeout_s;
    if (change.llm) {
      const llm: Record<string, unknown> = { ...((file.llm as Record<string, unknown> | undefined) ?? {}) };
      const { base_url, model, api, max_context, max_tools } = change.llm;
      if (base_url !== undefined) llm.base_url = base_url;
      if (model === null) delete llm.model;
      else if (model !== undefined) llm.model = model;
      if (api !== undefined) llm.api = api;
      if (max_context === null) delete llm.max_context;
      else if (max_context !== undefined) llm.max_context = max_context;
      if (max_tools === null) delete llm.max_tools;
      else if (max_tools !== undefined) llm.max_tools = max_tools;
      next.llm = llm;
    }
    if (change.history) {
      const history: Record<string, unknown> = { ...((file.history as Record<string, unknown> | undefined) ?? {}) };
      const { retention_days, max_rows } = change.history;
      if (retention_days !== undefined) history.retention_days = retention_days;
      if (max_rows === null) delete history.max_rows;
      else if (max_rows !== undefined) history.max_rows = max_rows;
      next.history = history;
    }
    if (change.mcp_sampling !== undefined) next.mcp_sampling = change.mcp_sampling;
    if (change.ollama_proxy) next.ollama_proxy = { ...((file.ollama_proxy as Record<string, unknown> | undefined) ?? {}), ...change.ollama_proxy };
    try {
      writeConfigFile(this.#file, next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new GatewayError('CONFIG_WRITE_FAILED', 500, `Could not save ${this.#file} (${code}); nothing was changed.`);
    }
  }

  #fileKeys(change: Change<Checked>): SettingKey[] {
    const keys: SettingKey[] = [];
    if (change.roots) keys.push('roots');
    if (change.approval_timeout_s !== undefined) keys.push('approval_timeout_s');
    for (const key of LLM_BODY_KEYS) if (change.llm?.[key] != null) keys.push(`llm.${key}`);
    if (change.history) keys.push('history');
    if (change.ollama_proxy) keys.push('ollama_proxy');
    return keys;
  }
}

function describeSource(source: Exclude<ConfigSource, { kind: 'file' }>): string {
  if (source.kind === 'flag') return `the ${source.name} flag`;
  return source.file ? `${source.name} in ${source.file}` : `the environment variable ${source.name}`;
}

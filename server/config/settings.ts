import { join } from 'node:path';
import { refuse } from '../errors.js';
import type { Announcer } from '../events/bus.js';
import { isPlainObject } from '../util/json.js';
import type { HistoryLimits, HistoryPreview, HistoryRetention, Settings } from '../contract/settings.js';
import { DEFAULT_LLM_MAX_CONTEXT, type LlmApi, type PincerConfig } from './config.js';
import { HISTORY_BODY_KEYS, parseHistory, parseSettingsPatch, SETTING_KEYS, type SettingKey, type SettingName, type ParsedPatch } from './settings-patch.js';
import { applyToConfig, historyLimits, saveSettings, touchesConfigFile } from './settings-save.js';

export type { SettingKey, SettingName, ParsedPatch } from './settings-patch.js';
export type { HistoryLimits, HistoryPreview } from '../contract/settings.js';

/** GET /settings (and the answer to every PATCH): the contract's settings, its locked keys named as settings. */
export interface SettingsView extends Settings {
  locked: Partial<Record<SettingKey, string>>;
}

/** Facts about the running gateway that GET /settings shows and no setting changes. */
export interface GatewayFacts {
  /** The address the gateway answers on. */
  address(): string;
  /** The OS sandbox of run_shell and run_python here. */
  sandbox(): { kind: string; detail: string };
  /** The named clients with a working token: the ones the token-less Ollama proxy may act as. */
  clientNames(): string[];
}

/**
 * The sections whose live state a part of the gateway holds rather than config.json, or whose new values only it
 * can judge: that part registers here (`own`) when it is built.
 */
export interface SectionOwners {
  /** The pause switch, kept in the database. */
  paused: { read(): boolean };
  /** Checks folders as roots (they exist, are folders, are not Pincer's own) before anything is saved; throws naming the problem. */
  roots: { check(list: string[]): unknown };
  /** The history's retention state, and what limits not yet saved would delete. */
  history: { read(): HistoryRetention; preview(limits: PincerConfig['history']): Omit<HistoryPreview, keyof HistoryLimits> };
}

/**
 * One applied change: which settings the PATCH changed and their new values (roots as their owner checked them).
 * config already holds the new values when it is announced; paused and the pruning consent are the owner's to keep.
 */
export interface SettingsChange {
  changed: readonly SettingName[];
  patch: Readonly<ParsedPatch>;
}

/** What a service that applies a setting needs: the one typed change, announced after each PATCH. */
export interface SettingsChanges {
  onChange(listener: (change: SettingsChange) => void): () => void;
}

/**
 * The owner's run-time settings. Values are checked with the same parsers start-up uses; a change is saved to
 * config.json (so it survives a restart), put into the live config, and then announced once to every part that
 * applies settings. `paused` lives in the database, as before. A value set by an environment variable or a flag
 * wins over config.json at the next start, so changing it here would be undone silently: such keys are refused,
 * naming where they are set.
 */
export class GatewaySettings implements SettingsChanges {
  readonly #file: string;
  readonly #owners: Partial<SectionOwners> = {};
  readonly #listeners = new Set<(change: SettingsChange) => void>();

  constructor(
    private readonly config: PincerConfig,
    private readonly facts: GatewayFacts,
    /** Where a change is announced, whoever made it (dashboard, tray): everything showing settings or tools re-reads. */
    private readonly events?: Announcer<'tools'>,
  ) {
    this.#file = join(config.dataDir, 'config.json');
    // The gateway's config shows the live values; its sources map may be shared with a copy the caller kept.
    config.sources = { ...config.sources };
  }

  /** Registers the part of the gateway that holds a section's live state or judges its values. */
  own<K extends keyof SectionOwners>(section: K, owner: SectionOwners[K]): void {
    this.#owners[section] = owner;
  }

  /** Calls `listener` after every applied change (in the order listeners were added); answers how to stop. */
  onChange(listener: (change: SettingsChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  view(): SettingsView {
    const { config } = this;
    const locked: SettingsView['locked'] = {};
    for (const key of SETTING_KEYS) {
      const source = config.sources[key];
      if (source && source.kind !== 'file') locked[key] = source.name;
    }
    const history = this.#owners.history;
    return {
      paused: this.#owners.paused?.read() ?? false,
      address: this.facts.address(),
      data_dir: config.dataDir,
      roots: [...config.roots],
      ...(config.rootsNotice && { roots_notice: config.rootsNotice }),
      approval_timeout_s: config.approvalTimeoutS,
      llm: { base_url: config.llm.baseUrl, model: config.llm.model ?? null, api: config.llm.api, max_context: config.llm.maxContext ?? DEFAULT_LLM_MAX_CONTEXT, max_tools: config.llm.maxTools ?? null },
      locked,
      sandbox: this.facts.sandbox(),
      ...(history && { history: history.read() }),
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
    const change = parseHistory(body, problems);
    if (problems.length > 0) throw refuse.badRequest(`Invalid history limits: ${problems.map((p) => p.message).join('; ')}.`, { errors: problems });
    const limits = historyLimits(this.config, change ?? {});
    const counts = this.#owners.history?.preview(limits) ?? { prunable: 0, newly_prunable: 0, newly_prunable_conversations: 0 };
    return { retention_days: limits.retentionDays, max_rows: limits.maxRows ?? null, ...counts };
  }

  /**
   * Validates every key of a PATCH body before anything changes, saves the config.json keys, then applies all of it.
   * Answers which keys changed; throws a GatewayError (400 bad value, 409 locked or unreadable config.json, 500 not
   * saved) and then nothing has changed.
   */
  update(body: unknown): { view: SettingsView; changed: string[] } {
    const roots = this.#owners.roots;
    const patch = parseSettingsPatch(body, this.config, {
      ...(roots && { roots: (list: string[]) => roots.check(list) }),
      clientNames: () => this.facts.clientNames(),
    });
    const changed = Object.keys(patch) as SettingName[];
    if (touchesConfigFile(patch)) saveSettings(this.#file, patch);
    applyToConfig(this.config, patch);
    if (changed.length > 0) for (const listener of [...this.#listeners]) listener({ changed, patch });
    this.#announce(changed, patch);
    return { view: this.view(), changed };
  }

  #announce(changed: readonly SettingName[], patch: ParsedPatch): void {
    if (patch.paused !== undefined) this.events?.emit('tools', { reason: patch.paused ? 'paused' : 'resumed', names: [] });
    // Roots change what the file tools may reach: open dashboards and clients re-read what they show. A change of
    // paused alone was announced just above; a second event would only make them re-read twice.
    if (changed.some((key) => key !== 'paused')) this.events?.emit('tools', { reason: 'settings', names: [] });
  }
}

import { isAbsolute } from 'node:path';
import { refuse } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { ownFolders } from './own-folders.js';
import { ConfigError, settingParsers, type ConfigSource, type LlmApi, type PincerConfig, type Source } from './config.js';

/** The settings config.json holds that an environment variable or a flag can lock, spelt as in config.json. */
export type SettingKey = 'roots' | 'approval_timeout_s' | 'llm.base_url' | 'llm.model' | 'llm.api' | 'llm.max_context' | 'llm.max_tools' | 'history' | 'ollama_proxy';
export const SETTING_KEYS: readonly SettingKey[] = ['roots', 'approval_timeout_s', 'llm.base_url', 'llm.model', 'llm.api', 'llm.max_context', 'llm.max_tools', 'history', 'ollama_proxy'];
/** The top-level keys a PATCH /settings body may hold. */
export const BODY_KEYS = ['paused', 'roots', 'approval_timeout_s', 'llm', 'history', 'history_pruning_confirmed', 'ollama_proxy', 'mcp_sampling'] as const;
export type SettingName = (typeof BODY_KEYS)[number];
export const LLM_BODY_KEYS = ['base_url', 'model', 'api', 'max_context', 'max_tools'] as const;
export const HISTORY_BODY_KEYS = ['retention_days', 'max_rows'] as const;
const OLLAMA_BODY_KEYS = ['tokenless', 'client'] as const;
/** The objects of a PATCH body whose keys are checked one by one. */
const NESTED_KEYS = { llm: LLM_BODY_KEYS, history: HISTORY_BODY_KEYS, ollama_proxy: OLLAMA_BODY_KEYS } as const;
const FROM: Source['from'] = 'PATCH /settings';

/** A PATCH that passed validation: each value parsed (roots also checked by their owner), nothing applied yet. */
export interface ParsedPatch {
  paused?: boolean;
  roots?: { list: string[]; checked: unknown };
  approval_timeout_s?: number;
  llm?: { base_url?: string; model?: string | null; api?: LlmApi; max_context?: number | null; max_tools?: number | null };
  history?: { retention_days?: number; max_rows?: number | null };
  history_pruning_confirmed?: boolean;
  ollama_proxy?: { tokenless?: boolean; client?: string };
  mcp_sampling?: boolean;
}

/** What parsing needs from the rest of the gateway: the owner's checks of values only it can judge. */
export interface PatchChecks {
  /** Checks folders as roots (exist, folders, not Pincer's own); throws naming the problem. */
  roots?(list: string[]): unknown;
  /** The named clients with a working token: the ones the token-less Ollama proxy may act as. */
  clientNames(): string[];
}

type Problems = { key: string; message: string }[];

/**
 * Validates every key of a PATCH /settings body against start-up's parsers; throws a GatewayError (400 unknown key
 * or bad value, 409 a key locked by an environment variable or flag) and then nothing has changed.
 */
export function parseSettingsPatch(body: unknown, config: PincerConfig, checks: PatchChecks): ParsedPatch {
  if (!isPlainObject(body)) throw refuse.badRequest(`Send a JSON object with one or more of ${BODY_KEYS.join(', ')}.`);
  refuseUnknownKeys(body);
  if (Object.keys(body).length === 0) throw refuse.badRequest(`Nothing to change: send one or more of ${BODY_KEYS.join(', ')}.`);
  // Locked before bad values: fixing the value would not help.
  refuseLockedKeys(body, config);

  const change: ParsedPatch = {};
  const problems: Problems = [];
  const parse = <T>(key: string, run: () => T): T | undefined => {
    try {
      return run();
    } catch (error) {
      if (error instanceof ConfigError && error.problem) problems.push({ key, message: `${error.problem.key} ${error.problem.text}` });
      else problems.push({ key, message: `${key}: ${(error as Error).message}` });
      return undefined;
    }
  };

  for (const key of ['paused', 'history_pruning_confirmed'] as const) {
    if (body[key] === undefined) continue;
    if (typeof body[key] === 'boolean') change[key] = body[key];
    else problems.push({ key, message: `${key} must be true or false, got ${JSON.stringify(body[key])}` });
  }
  if (body.mcp_sampling !== undefined) {
    const value = parse('mcp_sampling', () => settingParsers.mcp_sampling({ value: body.mcp_sampling, from: FROM }));
    if (value !== undefined) change.mcp_sampling = value;
  }
  if (body.roots !== undefined) {
    const roots = parse('roots', () => parseRoots(body.roots, config, checks));
    if (roots) change.roots = roots;
  }
  if (body.approval_timeout_s !== undefined) {
    const seconds = parse('approval_timeout_s', () => settingParsers.approval_timeout_s({ value: body.approval_timeout_s, from: FROM }));
    if (seconds !== undefined) change.approval_timeout_s = seconds;
  }
  if (body.llm !== undefined) {
    const llm = parseLlm(body.llm, parse, problems);
    if (llm && Object.keys(llm).length > 0) change.llm = llm;
  }
  if (body.history !== undefined) {
    const history = parseHistory(body.history, problems);
    if (history && Object.keys(history).length > 0) change.history = history;
  }
  if (body.ollama_proxy !== undefined) {
    const proxy = parseOllamaProxy(body.ollama_proxy, config, checks, parse, problems);
    if (proxy && Object.keys(proxy).length > 0) change.ollama_proxy = proxy;
  }
  if (problems.length > 0) {
    throw refuse.badRequest(`Invalid settings: ${problems.map((p) => p.message).join('; ')}. Nothing was changed.`, { errors: problems });
  }
  return change;
}

function refuseUnknownKeys(body: Record<string, unknown>): void {
  const unknown = Object.keys(body).filter((k) => !(BODY_KEYS as readonly string[]).includes(k));
  for (const [key, known] of Object.entries(NESTED_KEYS)) {
    const nested = body[key];
    if (isPlainObject(nested)) unknown.push(...Object.keys(nested).filter((k) => !(known as readonly string[]).includes(k)).map((k) => `${key}.${k}`));
  }
  if (unknown.length === 0) return;
  throw refuse.badRequest(
    `Unknown setting${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the settings are ` +
      'paused, roots, approval_timeout_s, llm (base_url, model, api, max_context, max_tools), history (retention_days, max_rows), ' +
      'history_pruning_confirmed, ollama_proxy (tokenless, client) and mcp_sampling.',
    { unknown },
  );
}

function refuseLockedKeys(body: Record<string, unknown>, config: PincerConfig): void {
  const given: SettingKey[] = [];
  for (const key of ['roots', 'approval_timeout_s', 'history', 'ollama_proxy'] as const) if (body[key] !== undefined) given.push(key);
  if (isPlainObject(body.llm)) for (const key of LLM_BODY_KEYS) if (body.llm[key] !== undefined) given.push(`llm.${key}`);
  const locked = given.flatMap((key) => {
    const source = config.sources[key];
    return source && source.kind !== 'file' ? [{ key, source }] : [];
  });
  if (locked.length === 0) return;
  throw refuse.settingLocked(
    locked.map(({ key, source }) => `${key} is set by ${describeSource(source)}`).join('; '),
    Object.fromEntries(locked.map(({ key, source }) => [key, source.name])),
  );
}

type Parse = <T>(key: string, run: () => T) => T | undefined;

function parseLlm(value: unknown, parse: Parse, problems: Problems): ParsedPatch['llm'] {
  if (!isPlainObject(value)) {
    problems.push({ key: 'llm', message: `llm must be an object like {"base_url": "http://127.0.0.1:11434", "model": "llama3.1", "api": "ollama"}` });
    return undefined;
  }
  const llm: NonNullable<ParsedPatch['llm']> = {};
  const { base_url, model, api, max_context, max_tools } = value;
  if (base_url !== undefined) llm.base_url = parse('llm.base_url', () => settingParsers['llm.base_url']({ value: base_url, from: FROM }));
  // null clears the model: the bridge then uses whatever the LLM server offers first.
  if (model !== undefined) llm.model = model === null ? null : parse('llm.model', () => settingParsers['llm.model']({ value: model, from: FROM }));
  if (api !== undefined) llm.api = parse('llm.api', () => settingParsers['llm.api']({ value: api, from: FROM }));
  // null: back to the default window cap.
  if (max_context !== undefined) llm.max_context = max_context === null ? null : parse('llm.max_context', () => settingParsers['llm.max_context']({ value: max_context, from: FROM }));
  // null: worked out from the model's window again.
  if (max_tools !== undefined) llm.max_tools = max_tools === null ? null : parse('llm.max_tools', () => settingParsers['llm.max_tools']({ value: max_tools, from: FROM }));
  return llm;
}

/** `history` of a PATCH (or of a preview): each limit checked with start-up's parser; max_rows null lifts the row limit. */
export function parseHistory(value: unknown, problems: Problems): ParsedPatch['history'] {
  if (!isPlainObject(value)) {
    problems.push({ key: 'history', message: 'history must be an object like {"retention_days": 90, "max_rows": 100000}' });
    return undefined;
  }
  const history: NonNullable<ParsedPatch['history']> = {};
  for (const key of HISTORY_BODY_KEYS) {
    const raw = value[key];
    if (raw === undefined || (key === 'max_rows' && raw === null)) {
      if (raw === null) history.max_rows = null;
      continue;
    }
    try {
      history[key] = settingParsers[`history.${key}`]({ value: raw, from: FROM });
    } catch (error) {
      const problem = error instanceof ConfigError ? error.problem : undefined;
      problems.push({ key: `history.${key}`, message: problem ? `${problem.key} ${problem.text}` : `history.${key}: ${(error as Error).message}` });
    }
  }
  return history;
}

function parseOllamaProxy(value: unknown, config: PincerConfig, checks: PatchChecks, parse: Parse, problems: Problems): ParsedPatch['ollama_proxy'] {
  if (!isPlainObject(value)) {
    problems.push({ key: 'ollama_proxy', message: 'ollama_proxy must be an object like {"tokenless": true, "client": "ollama-app"}' });
    return undefined;
  }
  const proxy: NonNullable<ParsedPatch['ollama_proxy']> = {};
  const { tokenless, client } = value;
  if (tokenless !== undefined) proxy.tokenless = parse('ollama_proxy.tokenless', () => settingParsers['ollama_proxy.tokenless']({ value: tokenless, from: FROM }));
  if (client !== undefined) proxy.client = parse('ollama_proxy.client', () => parseOllamaClient(client, config, checks));
  if (proxy.tokenless === undefined) delete proxy.tokenless;
  if (proxy.client === undefined) delete proxy.client;
  return proxy;
}

/**
 * Security: token-less requests act as a client the owner made (or the one already set). A mistyped name would
 * quietly become a client of its own; the default client would hand the generated token's tools (often every
 * tool) to any program on this machine.
 */
function parseOllamaClient(value: unknown, config: PincerConfig, checks: PatchChecks): string {
  const name = settingParsers['ollama_proxy.client']({ value, from: FROM });
  const current = config.ollamaProxy.client;
  const names = checks.clientNames();
  if (name !== current && !names.includes(name)) {
    const choices = [...names, current].map((n) => `"${n}"`).join(', ');
    throw new Error(`must be a named client (${choices}; create one under Tokens first), got ${JSON.stringify(name)}`);
  }
  return name;
}

/** Roots as config.json holds them (absolute, as given) and as the path guard will use them (checked, real). */
function parseRoots(value: unknown, config: PincerConfig, checks: PatchChecks): NonNullable<ParsedPatch['roots']> {
  // A string would be split like PINCER_ROOTS; the dashboard sends a list, and a list is what gets saved. An
  // empty list shares no folder.
  if (!Array.isArray(value)) throw new Error(`must be a list of folders, got ${JSON.stringify(value)}`);
  // Relative to what? The gateway's working directory is not something the owner sees from the dashboard.
  const relative = value.find((p) => typeof p === 'string' && p !== '' && !isAbsolute(p));
  if (relative !== undefined) throw new Error(`"${relative}" is not an absolute path; give each folder's full path`);
  const list = settingParsers.roots({ value, from: FROM }, '/', ownFolders(config.dataDir));
  let checked: unknown = list;
  try {
    if (checks.roots) checked = checks.roots(list);
  } catch (error) {
    throw new Error((error as Error).message.replace(/\.$/, ''));
  }
  return { list, checked };
}

function describeSource(source: Exclude<ConfigSource, { kind: 'file' }>): string {
  if (source.kind === 'flag') return `the ${source.name} flag`;
  return source.file ? `${source.name} in ${source.file}` : `the environment variable ${source.name}`;
}

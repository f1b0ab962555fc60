import { GatewayError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { writeConfigFile } from './config-file.js';
import { ConfigError, readConfigObject, type PincerConfig } from './config.js';
import { LLM_BODY_KEYS, type SettingKey, type ParsedPatch } from './settings-patch.js';

/** Whether a patch changes anything config.json holds (paused and the pruning consent live in the database). */
export function touchesConfigFile(change: ParsedPatch): boolean {
  return Boolean(change.roots || change.approval_timeout_s !== undefined || change.llm || change.history || change.ollama_proxy || change.mcp_sampling !== undefined);
}

/**
 * Writes the changed keys into config.json, keeping every other key (even ones this version does not know); throws
 * a GatewayError (409 unreadable config.json, 500 not saved) and then nothing has changed.
 */
export function saveSettings(file: string, change: ParsedPatch): void {
  let saved: Record<string, unknown>;
  try {
    saved = readConfigObject(file);
  } catch (error) {
    const problem =
      error instanceof ConfigError
        ? error.message.replace(/^Invalid configuration: /, '')
        : `${file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`;
    // A file we cannot parse is never overwritten with our guess of it: the owner's hand edits would be lost.
    throw new GatewayError('CONFIG_FILE_INVALID', `${problem} Fix or remove it by hand, then try again; nothing was changed.`);
  }
  for (const key of ['llm', 'history', 'ollama_proxy'] as const) {
    if (saved[key] !== undefined && !isPlainObject(saved[key]) && change[key]) {
      throw new GatewayError('CONFIG_FILE_INVALID', `"${key}" in ${file} is not an object. Fix it by hand, then try again; nothing was changed.`);
    }
  }
  try {
    writeConfigFile(file, withChange(saved, change));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new GatewayError('CONFIG_WRITE_FAILED', `Could not save ${file} (${code}); nothing was changed.`);
  }
}

/** config.json's object with the patch written in; null removes a key (back to its default). */
function withChange(file: Record<string, unknown>, change: ParsedPatch): Record<string, unknown> {
  const next: Record<string, unknown> = { ...file };
  const nested = (key: 'llm' | 'history' | 'ollama_proxy') => ({ ...((file[key] as Record<string, unknown> | undefined) ?? {}) });
  const put = (target: Record<string, unknown>, key: string, value: unknown) => {
    if (value === null) delete target[key];
    else if (value !== undefined) target[key] = value;
  };
  if (change.roots) next.roots = change.roots.list;
  if (change.approval_timeout_s !== undefined) next.approval_timeout_s = change.approval_timeout_s;
  if (change.llm) {
    const llm = nested('llm');
    for (const key of LLM_BODY_KEYS) put(llm, key, change.llm[key]);
    next.llm = llm;
  }
  if (change.history) {
    const history = nested('history');
    put(history, 'retention_days', change.history.retention_days);
    put(history, 'max_rows', change.history.max_rows);
    next.history = history;
  }
  if (change.mcp_sampling !== undefined) next.mcp_sampling = change.mcp_sampling;
  if (change.ollama_proxy) next.ollama_proxy = { ...nested('ollama_proxy'), ...change.ollama_proxy };
  return next;
}

/** The history limits in force once `change` is applied. */
export function historyLimits(config: PincerConfig, change: NonNullable<ParsedPatch['history']>): PincerConfig['history'] {
  const { history } = config;
  return {
    retentionDays: change.retention_days ?? history.retentionDays,
    maxRows: change.max_rows === undefined ? history.maxRows : (change.max_rows ?? undefined),
  };
}

/**
 * Puts a saved patch into the live config (everything reading it follows at once) and marks its keys as coming
 * from config.json.
 */
export function applyToConfig(config: PincerConfig, change: ParsedPatch): void {
  if (change.roots) {
    config.roots = change.roots.list;
    // The owner chose: the working folder's story no longer applies.
    delete config.rootsNotice;
  }
  if (change.approval_timeout_s !== undefined) config.approvalTimeoutS = change.approval_timeout_s;
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
  if (change.history) config.history = historyLimits(config, change.history);
  // Read by the Ollama routes on every request: the next one follows the new setting.
  if (change.ollama_proxy) config.ollamaProxy = { ...config.ollamaProxy, ...change.ollama_proxy };
  if (change.mcp_sampling !== undefined) config.mcpSampling = change.mcp_sampling;
  for (const key of fileKeys(change)) config.sources[key] = { kind: 'file' };
  // A cleared value is no longer in config.json: it is back to its default.
  for (const key of ['model', 'max_context', 'max_tools'] as const) if (change.llm?.[key] === null) delete config.sources[`llm.${key}`];
}

function fileKeys(change: ParsedPatch): SettingKey[] {
  const keys: SettingKey[] = [];
  if (change.roots) keys.push('roots');
  if (change.approval_timeout_s !== undefined) keys.push('approval_timeout_s');
  for (const key of LLM_BODY_KEYS) if (change.llm?.[key] != null) keys.push(`llm.${key}`);
  if (change.history) keys.push('history');
  if (change.ollama_proxy) keys.push('ollama_proxy');
  return keys;
}

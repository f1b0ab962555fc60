import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { closestNames } from '../util/closest.js';
import { describePlace, placeOf, scanJson } from './json-places.js';
import { CONFIG_KEYS, ConfigError, LLM_KEYS, type ConfigFlags, type ConfigKey, type PincerConfig, type Source } from './types.js';

/**
 * Where configuration values come from: a flag, else the environment (the real one over the data directory's .env),
 * else config.json.
 */
export interface Layers {
  dataDir: string;
  /** The real environment over the data directory's .env. */
  env: NodeJS.ProcessEnv;
  file: Record<string, unknown>;
  fileLlm: Record<string, unknown>;
  /** Where each value picked so far came from (filled in by pick). */
  sources: PincerConfig['sources'];
  /** The first layer that gives a value: the flag, else the variable (unless empty), else config.json's `fileValue`. */
  pick(flag: unknown, flagName: string, envName: string | undefined, fileValue: unknown, fileKey: ConfigKey): Source | undefined;
  /** config.json's value of a key that no flag or variable sets. */
  fromFile(key: FileOnlyKey): Source | undefined;
  /** `value` read from the variable `name`, named as the user must look for it. */
  fromEnv(name: string, value: unknown): Source;
}

/** The keys only config.json sets. */
type FileOnlyKey = Exclude<(typeof CONFIG_KEYS)[number], 'host' | 'port' | 'roots' | 'llm'>;

/** Reads the data directory's .env and config.json once, for `pick` to choose from. */
export function readLayers(flags: ConfigFlags, realEnv: NodeJS.ProcessEnv, home: string | undefined, cwd: string): Layers {
  const dataDir = resolveDataDir(flags, realEnv, home, cwd);
  // The real environment wins over the data directory's .env file.
  const dotEnvFile = join(dataDir, '.env');
  const dotEnv = readDotEnv(dotEnvFile);
  const env = { ...dotEnv, ...realEnv };
  const fromEnv = (name: string, value: unknown): Source => {
    // An error names where a value came from, so the user edits the .env file rather than hunting their shell.
    if (realEnv[name] === undefined && name in dotEnv) return { value, from: `${name} in ${dotEnvFile}`, origin: { kind: 'env', name, file: dotEnvFile } };
    return { value, from: name, origin: { kind: 'env', name } };
  };
  const file = readConfigFile(join(dataDir, 'config.json'));
  const sources: PincerConfig['sources'] = {};
  const pick: Layers['pick'] = (flag, flagName, envName, fileValue, fileKey) => {
    let source: Source | undefined;
    if (flag !== undefined) source = { value: flag, from: `--${flagName}`, origin: { kind: 'flag', name: `--${flagName}` } };
    else if (envName && env[envName] !== undefined && env[envName] !== '') source = fromEnv(envName, env[envName]);
    else if (fileValue !== undefined) source = { value: fileValue, from: `config.json ${fileKey}`, origin: { kind: 'file' } };
    if (source?.origin) sources[fileKey] = source.origin;
    return source;
  };
  const fromFile: Layers['fromFile'] = (key) => pick(undefined, '', undefined, file[key], key);
  return { dataDir, env, file, fileLlm: (file.llm ?? {}) as Record<string, unknown>, sources, pick, fromFile, fromEnv };
}

/** `$PINCER_HOME`, else `~/.pincer`; a --data-dir flag wins over both. A relative path is taken from `cwd`. */
export function resolveDataDir(
  flags: ConfigFlags = {},
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
  cwd = process.cwd(),
): string {
  const chosen = flags.dataDir ?? env.PINCER_HOME;
  return resolve(cwd, chosen && chosen.trim() !== '' ? chosen : join(home, '.pincer'));
}

function readDotEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const parsed = parseEnv(readFileSync(file, 'utf8'));
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => e[1] !== undefined));
}

function readConfigFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  const config = parseConfigText(file, text);
  // A misspelt key would otherwise be ignored silently and the user would wonder why a setting has no effect.
  for (const key of Object.keys(config)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw unknownKey(text, key, CONFIG_KEYS, '');
  }
  if (config.llm !== undefined) {
    if (!config.llm || typeof config.llm !== 'object' || Array.isArray(config.llm)) {
      throw new ConfigError('Invalid configuration: llm in config.json must be an object.');
    }
    for (const key of Object.keys(config.llm)) {
      if (!(LLM_KEYS as readonly string[]).includes(key)) throw unknownKey(text, key, LLM_KEYS, 'llm.');
    }
  }
  return config;
}

/** An unknown key, with where it is written and the known key it most likely meant. */
function unknownKey(text: string, key: string, known: readonly string[], prefix: string): ConfigError {
  const at = scanJson(text).keys.get(`${prefix}${key}`);
  const where = at === undefined ? '' : ` at ${describePlace(placeOf(text, at))}`;
  const [meant] = closestNames(key, known, 1);
  const hint = meant === undefined ? '' : `; did you mean "${prefix}${meant}"?`;
  return new ConfigError(
    `Invalid configuration: unknown key "${prefix}${key}" in config.json${where}${hint} (known keys: ${known.map((k) => `${prefix}${k}`).join(', ')}).`,
  );
}

/** config.json as the JSON object it holds ({} when there is none), with whatever keys it has. */
export function readConfigObject(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  return parseConfigText(file, readFileSync(file, 'utf8'));
}

function parseConfigText(file: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8 quotes the offending text, newlines included; the error must stay one line. Its offset (when it gives
    // one) is replaced by the line and column a person can go to.
    const reason = (error as Error).message.replace(/\s+/g, ' ').replace(/ (?:in JSON )?at position \d+.*$/, '');
    const at = scanJson(text).errorAt;
    const where = at === undefined ? '' : ` at ${describePlace(placeOf(text, at))}`;
    throw new ConfigError(`Invalid configuration: ${file} is not valid JSON${where} (${reason}).`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid configuration: ${file} must hold a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}

import { ConfigError, type Source } from './types.js';

/** Parsers of single values, shared by every section: a refusal names the key and where its value came from. */

/** A value that was not given stays undefined, so the caller's default applies. */
export function optional<T>(source: Source | undefined, parse: (source: Source) => T): T | undefined {
  return source === undefined ? undefined : parse(source);
}

/** Refuses a value with one line: the key, where the value came from, and what is wrong with it. */
export function fail(key: string, source: Source, problem: string): never {
  const text = `${problem}, got ${JSON.stringify(source.value)}`;
  throw new ConfigError(`Invalid configuration: ${key} (from ${source.from}) ${text}.`, { key, text });
}

export function parseInteger(source: Source | undefined, key: string, min: number, max: number): number | undefined {
  if (!source) return undefined;
  const raw = source.value;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) fail(key, source, `must be a whole number from ${min} to ${max}`);
  return n;
}

export function parseHost(source: Source | undefined): string | undefined {
  if (!source) return undefined;
  if (typeof source.value !== 'string' || !/^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:.]+|[A-Za-z0-9.-]{1,253})$/.test(source.value)) {
    fail('host', source, 'must be an IP address or host name');
  }
  return source.value.replace(/^\[|\]$/g, '');
}

export function parseStringList(source: Source | undefined, key: string): string[] | undefined {
  if (!source) return undefined;
  if (!Array.isArray(source.value) || !source.value.every((v) => typeof v === 'string' && v !== '')) {
    fail(key, source, 'must be a list of non-empty strings');
  }
  return (source.value as string[]).map((v) => v.toLowerCase());
}

export function objectWithKeys(source: Source, key: string, keys: readonly string[], example: string): Record<string, unknown> {
  const value = source.value;
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail(key, source, `must be an object like ${example}`);
  const unknown = Object.keys(value).filter((k) => !keys.includes(k));
  if (unknown.length > 0) fail(key, source, `has unknown key "${unknown[0]}" (known: ${keys.join(', ')})`);
  return value as Record<string, unknown>;
}

export function parseHttpUrl(source: Source | undefined, key: string): string | undefined {
  if (!source) return undefined;
  let url: URL | undefined;
  try {
    url = typeof source.value === 'string' ? new URL(source.value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) fail(key, source, 'must be an http:// or https:// URL');
  return url.href.replace(/\/+$/, '');
}

export function parseNonEmptyString(source: Source, key: string): string {
  if (typeof source.value !== 'string' || source.value.trim() === '') fail(key, source, 'must be a non-empty string');
  return source.value;
}

export function parseEnum<T extends string>(source: Source | undefined, key: string, allowed: readonly T[]): T | undefined {
  if (!source) return undefined;
  if (!allowed.includes(source.value as T)) fail(key, source, `must be one of ${allowed.join(', ')}`);
  return source.value as T;
}

export function parseToken(source: Source): string {
  // Short tokens can be guessed; the generated ones are 46 characters. The value itself is a secret: never echoed.
  if (typeof source.value !== 'string' || source.value.length < 16) {
    throw new ConfigError(`Invalid configuration: PINCER_TOKEN (from ${source.from}) must be at least 16 characters.`);
  }
  return source.value;
}

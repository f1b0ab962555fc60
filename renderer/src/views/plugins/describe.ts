// Plugins in words: their status, where a tool comes from, what a plugin may do and what changed in it. Pure, so the
// wording is tested without a browser.
import type { PluginPermissions, PluginStatus } from '../../lib/types';

export type Tone = 'ok' | 'wait' | 'fail' | 'run' | 'neutral';

/** Colour is never the only signal: each status has its own icon and word. */
export const STATUS_LOOK: Record<PluginStatus, { icon: string; label: string; tone: Tone; hint: string }> = {
  running: { icon: '✓', label: 'running', tone: 'ok', hint: 'Its tools are on and can be called' },
  new: { icon: '+', label: 'new', tone: 'wait', hint: 'Seen for the first time: its tools stay off until you accept it' },
  changed: { icon: '±', label: 'changed', tone: 'wait', hint: 'Its files changed since you accepted it: its tools stay off until you accept the change' },
  disabled: { icon: '–', label: 'disabled', tone: 'neutral', hint: 'Turned off: its tools cannot be called' },
  failed: { icon: '✕', label: 'failed', tone: 'fail', hint: 'It could not load: the reason says why' },
  crashed: { icon: '↻', label: 'crashed', tone: 'fail', hint: 'Its process ended; Pincer is restarting it' },
  loading: { icon: '◌', label: 'loading', tone: 'run', hint: 'Starting its process and reading its tools' },
};

/** Where a tool's code comes from, for the approval card; null for Pincer's own tools. */
export function sourceInWords(source: string | undefined): { kind: string; name: string } | null {
  if (!source || source === 'builtin') return null;
  const colon = source.indexOf(':');
  const [prefix, name] = colon < 0 ? [source, ''] : [source.slice(0, colon), source.slice(colon + 1)];
  if (prefix === 'plugin') return { kind: 'plugin', name };
  if (prefix === 'mcp') return { kind: 'MCP server', name };
  return { kind: prefix, name };
}

/** "it is marked destructive and its plugin reaches files beyond its own folder" */
export function joinReasons(reasons: readonly string[]): string {
  if (reasons.length <= 1) return reasons[0] ?? '';
  return `${reasons.slice(0, -1).join(', ')} and ${reasons.at(-1)}`;
}

export interface PermissionLine {
  label: string;
  /** `literal`: a host or path, shown as code; otherwise words. */
  values: { text: string; literal: boolean }[];
}

/** What a plugin may do, one line per kind; it always reads its own folder. */
export function permissionLines(p: PluginPermissions): PermissionLine[] {
  const literal = (items: string[]) => items.map((text) => ({ text, literal: true }));
  const words = (items: string[]) => items.map((text) => ({ text, literal: false }));
  const lines: PermissionLine[] = [];
  if (p.hosts.length > 0) lines.push({ label: 'Reaches hosts', values: literal(p.hosts) });
  lines.push({ label: 'Reads files', values: [...words(['its own folder']), ...literal(p.read)] });
  if (p.write.length > 0) lines.push({ label: 'Writes files', values: literal(p.write) });
  const running = [p.childProcess && 'starts processes', p.workers && 'runs worker threads', p.addons && 'loads native addons'].filter((v): v is string => !!v);
  if (running.length > 0) lines.push({ label: 'Runs code', values: words(running) });
  return lines;
}

/** True when it asks for nothing beyond its own folder. */
export function confined(p: PluginPermissions): boolean {
  return p.hosts.length + p.read.length + p.write.length === 0 && !p.childProcess && !p.workers && !p.addons;
}

export interface JsonChange {
  /** Where in the value: `properties.limit.maximum`, `required`; empty for the value itself. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrimitive = (v: unknown) => v === null || typeof v !== 'object';
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/**
 * The differences between two JSON values, as paths: objects key by key, lists of plain values as items added and
 * removed (a schema's `required`, an `enum`, a manifest's hosts), other lists position by position.
 */
export function jsonChanges(before: unknown, after: unknown, path = ''): JsonChange[] {
  if (same(before, after)) return [];
  if (before === undefined || before === null) return [{ path, kind: 'added', after }];
  if (after === undefined || after === null) return [{ path, kind: 'removed', before }];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => jsonChanges(before[key], after[key], join(path, key)));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    if (before.every(isPrimitive) && after.every(isPrimitive)) {
      const removed = before.filter((v) => !after.includes(v)).map((v): JsonChange => ({ path, kind: 'removed', before: v }));
      const added = after.filter((v) => !before.includes(v)).map((v): JsonChange => ({ path, kind: 'added', after: v }));
      // Only the order changed: show the lists.
      return removed.length + added.length > 0 ? [...removed, ...added] : [{ path, kind: 'changed', before, after }];
    }
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => jsonChanges(before[i], after[i], join(path, i))).flat();
  }
  return [{ path, kind: 'changed', before, after }];
}

/** A value in one line: strings as they are, the rest as compact JSON, cut at `max` characters. */
export function compact(value: unknown, max = typeof value === 'string' ? 400 : 200): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A changed field's name as the owner reads it. */
export function fieldInWords(field: string): string {
  const words: Record<string, string> = { parameters: 'schema', timeoutMs: 'timeout (ms)', cache: 'cache', annotations: 'annotations' };
  return words[field] ?? field;
}

/**
 * The command that writes a new plugin into this gateway's folder. `pincer` looks in ~/.pincer unless told; a
 * gateway with another data folder needs it named.
 */
export function newPluginCommand(folder: string | null, name = 'my-tools'): string {
  const dataDir = folder?.replace(/[\\/]plugins[\\/]?$/, '');
  if (!dataDir || /[\\/]\.pincer$/.test(dataDir)) return `pincer plugin new ${name}`;
  const quoted = /^[\w@%+=:,./\\-]+$/.test(dataDir) ? dataDir : `'${dataDir.replaceAll("'", `'\\''`)}'`;
  return `pincer plugin new ${name} --data-dir ${quoted}`;
}

// What changed between two versions of a JSON value (a tool's schema, a plugin's permissions), as paths a person
// reads line by line. Pure, so it is tested without a browser.

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

/** A changed field of a tool's definition (a plugin's or an imported MCP server's), named as the owner reads it. */
export function fieldInWords(field: string): string {
  const words: Record<string, string> = { parameters: 'schema', inputSchema: 'schema', timeoutMs: 'timeout (ms)' };
  return words[field] ?? field;
}

/**
 * A call's identity: the tool and its arguments, the same in any key order. The result cache keys on it, and an
 * "exact call" rule stores it.
 */
export function callKey(tool: string, args: unknown): string {
  return `${tool}\u0000${stableStringify(args)}`;
}

function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

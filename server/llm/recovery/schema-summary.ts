import { isPlainObject } from '../../util/json.js';
import { branchOf, resolveSchema } from './repair.js';

/**
 * What a tool expects, in one line, for the model that sent it bad arguments: small models fix a call far more
 * often from `{"limit"?: integer ≥ 1}` than from a validator's path and keyword. Nested objects are spelled out one
 * level deep, then just `object`; the line is capped so the message stays short.
 */

const MAX_LENGTH = 300;
const MAX_ENUM = 6;

export function expectedArguments(schema: unknown): string {
  const s = resolveSchema(schema, schema);
  if (!s || !isPlainObject(s.properties)) return 'a JSON object';
  const parts = propertyParts(schema, s, 0);
  let line = `{${parts.join(', ')}}`;
  if (line.length <= MAX_LENGTH) return line;
  // Whole properties while they fit, then an ellipsis; a single property too long for the line is cut.
  let kept = 0;
  line = '{…}';
  while (kept < parts.length) {
    const next = `{${parts.slice(0, kept + 1).join(', ')}, …}`;
    if (next.length > MAX_LENGTH) break;
    line = next;
    kept++;
  }
  return kept > 0 ? line : `${`{${parts[0]}`.slice(0, MAX_LENGTH - 2)}…}`;
}

function propertyParts(root: unknown, s: Json, depth: number): string[] {
  const properties = isPlainObject(s.properties) ? s.properties : {};
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r) => typeof r === 'string') : []);
  return Object.entries(properties).map(([name, sub]) => {
    const type = describe(root, sub, depth + 1);
    return required.has(name) ? `${JSON.stringify(name)}: ${type} (required)` : `${JSON.stringify(name)}?: ${type}`;
  });
}

type Json = Record<string, unknown>;

/** One value's expectation: enum values, a type with its bounds, `array of …`, an object one level deep. */
function describe(root: unknown, schema: unknown, depth: number): string {
  const s = resolveSchema(root, schema);
  if (!s) return 'any';
  if ('const' in s) return JSON.stringify(s.const) ?? 'any';
  if (Array.isArray(s.enum)) {
    const values = s.enum.slice(0, MAX_ENUM).map((v) => JSON.stringify(v) ?? 'null');
    return s.enum.length > MAX_ENUM ? `${values.join(' | ')} | …` : values.join(' | ');
  }
  const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (s.type === undefined && branches) {
    // Through a lone non-null branch (Pydantic's Optional) to keep its detail; otherwise each branch by its type.
    const only = branchOf(root, s);
    if (only && only !== s) return branches.length > 1 ? `${describe(root, only, depth)} | null` : describe(root, only, depth);
    return [...new Set(branches.map((b) => describe(root, b, depth)))].join(' | ');
  }
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type.filter((t) => typeof t === 'string') : [];
  if (types.length === 0) return isPlainObject(s.properties) ? objectOf(root, s, depth) : 'any';
  return types.map((type) => typeLine(root, s, type, depth)).join(' | ');
}

function typeLine(root: unknown, s: Json, type: string, depth: number): string {
  if (type === 'integer' || type === 'number') return `${type}${bounds(s)}`;
  if (type === 'array') return isPlainObject(s.items) ? `array of ${describe(root, s.items, depth)}` : 'array';
  if (type === 'object') return objectOf(root, s, depth);
  return type;
}

function objectOf(root: unknown, s: Json, depth: number): string {
  if (depth > 1 || !isPlainObject(s.properties) || Object.keys(s.properties).length === 0) return 'object';
  return `{${propertyParts(root, s, depth).join(', ')}}`;
}

function bounds(s: Json): string {
  const parts: string[] = [];
  if (typeof s.minimum === 'number') parts.push(`≥ ${s.minimum}`);
  if (typeof s.exclusiveMinimum === 'number') parts.push(`> ${s.exclusiveMinimum}`);
  if (typeof s.maximum === 'number') parts.push(`≤ ${s.maximum}`);
  if (typeof s.exclusiveMaximum === 'number') parts.push(`< ${s.exclusiveMaximum}`);
  return parts.length > 0 ? ` ${parts.join(' and ')}` : '';
}

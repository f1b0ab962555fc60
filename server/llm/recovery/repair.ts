import { jsonrepair } from 'jsonrepair';
import { isPlainObject, nestingDepth, parseUntrustedJson } from '../../util/json.js';

/**
 * Conservative repair of the arguments a small model sent: the text is mended into a JSON object, a wrapper the
 * model repeated around it is taken off, and strings are turned into the numbers, booleans, nulls, arrays and
 * objects the tool's schema asks for. Validation against the schema comes later; this only prepares the value, and
 * every change is named in `repairs` so the history shows what the model actually sent.
 */
export interface RepairedArguments {
  value: unknown;
  /** What was done, in order: fence, prose, json, double-encoded, unwrapped, `coerced <path>`. */
  repairs: string[];
  /** Set when no object could be made; written for the model. `value` is then what it sent. */
  error?: string;
}

type Json = Record<string, unknown>;

export function repairArguments(raw: unknown, schema: unknown, maxDepth: number): RepairedArguments {
  if (raw === undefined || raw === null || raw === '') return { value: {}, repairs: [] };
  const repairs: string[] = [];
  let value: unknown = raw;
  if (typeof raw === 'string') {
    // Steps are kept only when they end in an object: a refused text was not repaired.
    const steps: string[] = [];
    const decoded = decodeText(raw, maxDepth, steps);
    if ('error' in decoded) return { value: raw, repairs, error: notAnObject(decoded.error) };
    repairs.push(...steps);
    value = decoded.value;
  }
  if (!isPlainObject(value)) return { value: raw, repairs, error: notAnObject(`they are ${kindOf(value)}.`) };
  value = unwrap(value, schema, repairs);
  value = coerce(value, schema, { root: schema, repairs, maxDepth }, '', 1);
  return { value, repairs };
}

function notAnObject(reason: string): string {
  return `The arguments are not a JSON object: ${reason} Send arguments as a JSON object.`;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// ---- Text → object ----

type Decoded = { value: Json } | { error: string };
type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

function parse(text: string, maxDepth: number): Parsed {
  try {
    return { ok: true, value: parseUntrustedJson(text, maxDepth, 'the text') };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/**
 * The text inside a Markdown fence around the whole text, its closing fence optional (a model cut off at its token
 * limit); undefined when there is none. Sliced rather than matched by one regex, which backtracks on long blanks.
 */
function unfenced(text: string): string | undefined {
  const opening = /^```[\w+-]*[ \t]*\r?\n?/.exec(text);
  if (!opening) return undefined;
  const body = text.slice(opening[0].length).trimEnd();
  return (body.endsWith('```') ? body.slice(0, -3) : body).trim();
}

function decodeText(raw: string, maxDepth: number, repairs: string[]): Decoded {
  const strict = parse(raw, maxDepth);
  if (strict.ok) return objectFrom(strict.value, maxDepth, repairs, strict);
  // Too deep: no repair makes it acceptable, and jsonrepair recurses once per level. (A prototype key is refused
  // again when the mended text is parsed.)
  if (nestingDepth(raw) > maxDepth) return { error: strict.error };

  let text = raw.trim();
  const inside = unfenced(text);
  if (inside !== undefined) {
    text = inside;
    repairs.push('fence');
  }
  // A text that starts as a JSON array or string is JSON, not prose; jsonrepair and the checks below judge it.
  if (!text.startsWith('[') && !text.startsWith('"')) {
    const spans = topLevelObjects(text);
    if (spans.length > 1) return { error: `the text holds ${spans.length} JSON objects, not one.` };
    const span = spans[0];
    if (span && (span.start > 0 || span.end < text.length)) {
      text = text.slice(span.start, span.end);
      repairs.push('prose');
    }
  }
  let parsed = parse(text, maxDepth);
  if (!parsed.ok) {
    let mended: string;
    try {
      mended = jsonrepair(text);
    } catch {
      return { error: strict.error };
    }
    parsed = parse(mended, maxDepth);
    if (!parsed.ok) return { error: parsed.error };
    repairs.push('json');
  }
  return objectFrom(parsed.value, maxDepth, repairs, strict);
}

/** The parsed value as an object, a JSON string holding one (double-encoded) parsed once more. */
function objectFrom(value: unknown, maxDepth: number, repairs: string[], strict: Parsed): Decoded {
  if (isPlainObject(value)) return { value };
  if (typeof value === 'string' && value.trim().startsWith('{')) {
    let inner = parse(value, maxDepth);
    // The outer depth check skipped this text (it was inside a string): check it before jsonrepair recurses into it.
    if (!inner.ok && nestingDepth(value) <= maxDepth) {
      try {
        inner = parse(jsonrepair(value), maxDepth);
        if (inner.ok && !repairs.includes('json')) repairs.push('json');
      } catch {
        // Left as the string it is; refused below.
      }
    }
    if (inner.ok && isPlainObject(inner.value)) {
      repairs.push('double-encoded');
      return { value: inner.value };
    }
  }
  // jsonrepair quotes plain prose into a JSON string: the reason to give is then that the text was not JSON.
  if (!strict.ok && typeof value === 'string') return { error: strict.error };
  return { error: `they are ${kindOf(value)}.` };
}

/**
 * The JSON objects at the top level of a text: balanced braces, quotes honoured inside objects only (prose has
 * apostrophes and stray quotes). An object left open at the end of the text counts, running to the end.
 */
function topLevelObjects(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (depth > 0) {
      if (c === '"') inString = true;
      else if (c === '}' && --depth === 0) spans.push({ start, end: i + 1 });
    }
  }
  if (depth > 0) spans.push({ start, end: text.length });
  return spans;
}

// ---- Wrappers ----

const WRAPPERS = ['arguments', 'parameters', 'input', 'args'];

/** `{"arguments": {…}}` or a repeated call `{"name": "…", "arguments": {…}}`, unless the tool takes such a key. */
function unwrap(value: Json, schema: unknown, repairs: string[]): Json {
  const keys = Object.keys(value);
  let inner: unknown;
  if (keys.length === 1 && WRAPPERS.includes(keys[0]!) && !acceptsKey(schema, keys[0]!)) inner = value[keys[0]!];
  if (keys.length === 2 && typeof value.name === 'string' && !acceptsKey(schema, 'name')) {
    const key = keys.find((k) => k === 'arguments' || k === 'parameters');
    if (key && !acceptsKey(schema, key)) inner = value[key];
  }
  if (!isPlainObject(inner)) return value;
  repairs.push('unwrapped');
  return inner;
}

/**
 * Whether the schema may mean `key` as an argument of its own. A schema that lists no properties and does not
 * close them (free-form) or one we cannot read may mean anything, so nothing is unwrapped against it.
 */
function acceptsKey(schema: unknown, key: string): boolean {
  const s = branchOf(schema, schema);
  if (!s) return true;
  if (isPlainObject(s.properties) && Object.hasOwn(s.properties, key)) return true;
  if (isPlainObject(s.patternProperties)) {
    for (const pattern of Object.keys(s.patternProperties)) {
      try {
        if (new RegExp(pattern, 'u').test(key)) return true;
      } catch {
        return true;
      }
    }
  }
  return !isPlainObject(s.properties) && s.additionalProperties !== false;
}

// ---- Schema reading (shared with schema-summary.ts) ----

/** Follows `$ref` to `#/…` within the same schema (`$defs`, `definitions`); undefined for a ref that leads nowhere. */
export function resolveSchema(root: unknown, schema: unknown): Json | undefined {
  let current = schema;
  for (let hops = 0; hops < 32; hops++) {
    if (!isPlainObject(current)) return undefined;
    const ref = current.$ref;
    if (typeof ref !== 'string') return current;
    current = pointer(root, ref);
  }
  return undefined; // a cycle of refs
}

function pointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node = root;
  for (const raw of ref.slice(2).split('/')) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if ((!isPlainObject(node) && !Array.isArray(node)) || !Object.hasOwn(node, part)) return undefined;
    node = (node as Json)[part];
  }
  return node;
}

function branchesOf(s: Json): unknown[] | undefined {
  if (Array.isArray(s.anyOf)) return s.anyOf;
  if (Array.isArray(s.oneOf)) return s.oneOf;
  return undefined;
}

function isNullOnly(root: unknown, schema: unknown): boolean {
  const s = resolveSchema(root, schema);
  return s?.type === 'null' || (Array.isArray(s?.type) && s.type.length === 1 && s.type[0] === 'null');
}

/**
 * The types a schema allows, or undefined when it does not say or its branches disagree. `anyOf`/`oneOf` count
 * only when every branch names the same types; a `{"type": "null"}` branch is how Pydantic writes Optional, so it
 * adds null rather than counting as a disagreement.
 */
export function typesOf(root: unknown, schema: unknown, seen = 0): Set<string> | undefined {
  const s = resolveSchema(root, schema);
  if (!s || seen > 16) return undefined;
  if (typeof s.type === 'string') return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type.filter((t): t is string => typeof t === 'string'));
  const branches = branchesOf(s);
  if (!branches || branches.length === 0) return undefined;
  const nonNull = branches.filter((b) => !isNullOnly(root, b));
  const sets = nonNull.map((b) => typesOf(root, b, seen + 1));
  const first = sets[0];
  if (!first) return nonNull.length === 0 ? new Set(['null']) : undefined;
  for (const set of sets) if (!set || set.size !== first.size || [...set].some((t) => !first.has(t))) return undefined;
  const types = new Set(first);
  if (nonNull.length < branches.length) types.add('null');
  return types;
}

/** The one schema to read properties and items from: itself, or the only non-null branch of `anyOf`/`oneOf`. */
export function branchOf(root: unknown, schema: unknown, seen = 0): Json | undefined {
  const s = resolveSchema(root, schema);
  if (!s || seen > 16) return undefined;
  const branches = branchesOf(s);
  if (s.type !== undefined || s.properties !== undefined || s.items !== undefined || !branches) return s;
  const nonNull = branches.filter((b) => !isNullOnly(root, b));
  return nonNull.length === 1 ? branchOf(root, nonNull[0], seen + 1) : undefined;
}

// ---- Coercion ----

interface Context {
  root: unknown;
  repairs: string[];
  maxDepth: number;
}

/** `value` with strings coerced where the schema asks for another type; the same reference when nothing changed. */
function coerce(value: unknown, schema: unknown, ctx: Context, path: string, depth: number): unknown {
  const types = typesOf(ctx.root, schema);
  if (typeof value === 'string' && types && !types.has('string')) {
    const coerced = fromString(value, types, ctx.maxDepth - depth + 1);
    if (coerced !== value) {
      ctx.repairs.push(`coerced ${path}`);
      value = coerced;
    }
  }
  const s = branchOf(ctx.root, schema);
  if (!s) return value;
  if (isPlainObject(value)) return coerceProperties(value, s, ctx, path, depth);
  if (Array.isArray(value)) return coerceItems(value, s, ctx, path, depth);
  return value;
}

function coerceProperties(value: Json, s: Json, ctx: Context, path: string, depth: number): Json {
  const properties = isPlainObject(s.properties) ? s.properties : {};
  // Keys matched by patternProperties may mean something else; additionalProperties is read only without them.
  const extra = s.patternProperties === undefined && isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined;
  let changed = false;
  const entries = Object.entries(value).map(([key, child]): [string, unknown] => {
    const sub = Object.hasOwn(properties, key) ? properties[key] : extra;
    if (sub === undefined) return [key, child];
    const next = coerce(child, sub, ctx, path ? `${path}.${key}` : key, depth + 1);
    if (next !== child) changed = true;
    return [key, next];
  });
  // fromEntries defines keys as own data properties: a "__proto__" key stays a key.
  return changed ? Object.fromEntries(entries) : value;
}

function coerceItems(value: unknown[], s: Json, ctx: Context, path: string, depth: number): unknown[] {
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  let changed = false;
  const items = value.map((item, i) => {
    const sub = tuple && i < tuple.length ? tuple[i] : rest;
    if (!isPlainObject(sub)) return item;
    const next = coerce(item, sub, ctx, `${path}[${i}]`, depth + 1);
    if (next !== item) changed = true;
    return next;
  });
  return changed ? items : value;
}

const INTEGER = /^-?(?:0|[1-9]\d*)$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The string as the type the schema asks for, when it is exactly such a value; otherwise the string itself. */
function fromString(text: string, types: Set<string>, depthLeft: number): unknown {
  if (types.has('number') && NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  if (types.has('integer') && INTEGER.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  const lower = text.toLowerCase();
  if (types.has('boolean') && (lower === 'true' || lower === 'false')) return lower === 'true';
  if (types.has('null') && (text === 'null' || text === 'None')) return null;
  const trimmed = text.trim();
  const wantArray = types.has('array') && trimmed.startsWith('[');
  const wantObject = types.has('object') && trimmed.startsWith('{');
  if ((wantArray || wantObject) && depthLeft > 0) {
    const parsed = parse(trimmed, depthLeft);
    if (parsed.ok && (wantArray ? Array.isArray(parsed.value) : isPlainObject(parsed.value))) return parsed.value;
  }
  return text;
}

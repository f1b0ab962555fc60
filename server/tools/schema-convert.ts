import { dialectOf, escapePointer, MAP_KEYWORDS, unescapePointer, type Dialect } from './schema-dialects.js';

/**
 * A tool schema of any dialect rewritten as JSON Schema 2020-12 (what OpenAI, Anthropic and OpenAPI 3.1 read),
 * accepting and rejecting the same instances: `definitions` become `$defs` and every reference into them follows,
 * draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, `id` becomes `$id` (a `#name` id an
 * `$anchor`), array-form `items` becomes `prefixItems` with `additionalItems` as `items`, `dependencies` splits into
 * `dependentRequired`/`dependentSchemas`, 2019-09's `$recursiveRef` becomes `$dynamicRef`. A `$schema` naming
 * another dialect is dropped (the result claims none); a 2020-12 schema is returned as it is.
 */
export function toDraft2020<T extends Record<string, unknown>>(schema: T): T {
  const dialect = dialectOf(schema);
  if (dialect === '2020-12') return schema;
  return new Converter(schema, dialect).run() as T;
}

type Json = Record<string, unknown>;

const ARRAY_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_KEYWORDS = new Set([
  'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems',
  'unevaluatedProperties', 'contentSchema', 'items', 'additionalItems',
]);

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
/** A subschema whose `definitions` are renamed: it has no `$defs` of its own to clash with. */
const renamesDefinitions = (node: Json) => isObject(node.definitions) && node.$defs === undefined;

class Converter {
  readonly #idKey: string;
  /** 2019-09: the root answers `$recursiveRef`s dynamically. */
  readonly #recursive: boolean;

  constructor(
    private readonly root: Json,
    private readonly dialect: Dialect,
  ) {
    this.#idKey = dialect === 'draft-04' ? 'id' : '$id';
    this.#recursive = dialect === '2019-09' && root.$recursiveAnchor === true;
  }

  run(): Json {
    return this.#schema(this.root, this.root, 0) as Json;
  }

  /** `resource` is the (original) schema whose base the references inside `node` resolve against. */
  #schema(node: unknown, resource: Json, depth: number): unknown {
    if (!isObject(node) || depth > 256) return node;
    const ownId = node[this.#idKey];
    if (node !== this.root && typeof ownId === 'string' && !ownId.startsWith('#')) resource = node;
    const out: Json = {};
    const sub = (value: unknown) => this.#schema(value, resource, depth + 1);
    const tuple = Array.isArray(node.items);
    for (const [key, value] of Object.entries(node)) {
      if (key === '$schema') continue;
      if (key === this.#idKey && typeof value === 'string') {
        const [base, fragment] = splitFragment(value);
        if (base) out.$id = base;
        if (fragment) out.$anchor = fragment;
      } else if (key === 'definitions' && renamesDefinitions(node)) {
        out.$defs = mapValues(value as Json, sub);
      } else if (key === 'items' && tuple) {
        out.prefixItems = (value as unknown[]).map(sub);
        if (node.additionalItems !== undefined) out.items = sub(node.additionalItems);
      } else if (key === 'additionalItems') {
        // Draft-04 to 2019-09 ignore it unless `items` is an array, where it became `items` above.
      } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'boolean') {
        const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (value && typeof node[bound] === 'number') out[key] = node[bound];
      } else if ((key === 'minimum' || key === 'maximum') && node[key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'] === true) {
        // Became the exclusive bound.
      } else if (key === 'dependencies' && isObject(value)) {
        for (const [name, dependency] of Object.entries(value)) {
          const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
          out[target] = { ...(out[target] as Json | undefined), [name]: Array.isArray(dependency) ? dependency : sub(dependency) };
        }
      } else if (key === '$recursiveAnchor' && this.dialect === '2019-09') {
        if (value === true && node === this.root) out.$dynamicAnchor = 'pincer-recursive';
      } else if (key === '$recursiveRef' && this.dialect === '2019-09' && typeof value === 'string') {
        if (this.#recursive && resource === this.root) out.$dynamicRef = '#pincer-recursive';
        else out.$ref = value;
      } else if (key === '$ref' && typeof value === 'string') {
        out.$ref = this.#ref(value, resource);
      } else if (MAP_KEYWORDS.has(key) && isObject(value)) {
        out[key] = mapValues(value, sub);
      } else if (ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
        out[key] = value.map(sub);
      } else if (SCHEMA_KEYWORDS.has(key)) {
        out[key] = sub(value);
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  /** A reference as it reads after the conversion: the same target, under its new keywords. */
  #ref(ref: string, resource: Json): string {
    const ownId = typeof resource[this.#idKey] === 'string' ? splitFragment(resource[this.#idKey] as string)[0] : '';
    let fragment = ref;
    if (ownId && (ref === ownId || ref.startsWith(`${ownId}#`))) fragment = ref.slice(ownId.length) || '#';
    if (!fragment.startsWith('#/')) return fragment;
    let segments: string[];
    try {
      segments = fragment.slice(2).split('/').map((s) => unescapePointer(decodeURIComponent(s)));
    } catch {
      return fragment; // not a pointer Ajv could have followed either
    }
    return `#/${translatePointer(resource, segments).map((s) => encodePointerSegment(s)).join('/')}`;
  }
}

/** Walks `segments` through the original schema, naming each step as the converted schema does. */
function translatePointer(resource: Json, segments: string[]): string[] {
  const out: string[] = [];
  let node: unknown = resource;
  let i = 0;
  while (i < segments.length) {
    const seg = segments[i]!;
    if (!isObject(node)) break;
    const tuple = Array.isArray(node.items);
    if (seg === 'definitions' && renamesDefinitions(node)) {
      out.push('$defs', ...segments.slice(i + 1, i + 2));
      node = (node.definitions as Json)[segments[i + 1] ?? ''];
      i += 2;
    } else if (seg === 'items' && tuple) {
      out.push('prefixItems', ...segments.slice(i + 1, i + 2));
      node = (node.items as unknown[])[Number(segments[i + 1])];
      i += 2;
    } else if (seg === 'additionalItems' && tuple) {
      out.push('items');
      node = node.additionalItems;
      i += 1;
    } else if (seg === 'dependencies' && isObject(node.dependencies)) {
      const name = segments[i + 1] ?? '';
      const dependency = node.dependencies[name];
      out.push(Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas', ...segments.slice(i + 1, i + 2));
      node = dependency;
      i += 2;
    } else if (MAP_KEYWORDS.has(seg) || ARRAY_KEYWORDS.has(seg)) {
      out.push(seg, ...segments.slice(i + 1, i + 2));
      const container = node[seg] as Record<string, unknown> | undefined;
      node = container?.[segments[i + 1] ?? ''];
      i += 2;
    } else if (SCHEMA_KEYWORDS.has(seg)) {
      out.push(seg);
      node = node[seg];
      i += 1;
    } else {
      break;
    }
  }
  return [...out, ...segments.slice(i)];
}

function splitFragment(id: string): [string, string] {
  const hash = id.indexOf('#');
  return hash < 0 ? [id, ''] : [id.slice(0, hash), id.slice(hash + 1)];
}

function mapValues(map: Json, fn: (value: unknown) => unknown): Json {
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, fn(value)]));
}

/** A JSON Pointer segment as a URI fragment writes it (`~` and `/` escaped, then what a fragment may not hold). */
export function encodePointerSegment(segment: string): string {
  return escapePointer(segment).replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@]/g, (c) => encodeURIComponent(c));
}

import { Ajv, type Format, type Options, type SchemaObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { RegExpEngine, SchemaValidateFunction } from 'ajv/dist/types/index.js';
import * as ajvDraft04 from 'ajv-draft-04';
import * as ajvFormats from 'ajv-formats';
import { compileLinear } from './linear-regexp.js';
import { linearFormats } from './string-formats.js';

/**
 * JSON Schema dialects as tools publish them: each `$schema` spelling servers write mapped to the Ajv class that
 * implements it. No `$schema` means 2020-12 (MCP's default).
 */

export type Dialect = 'draft-04' | 'draft-07' | '2019-09' | '2020-12';

export const DEFAULT_DIALECT: Dialect = '2020-12';

// Each is accepted with http or https and with or without the empty fragment.
const DIALECT_URIS: Record<string, Dialect> = {
  'json-schema.org/draft-04/schema': 'draft-04',
  'json-schema.org/draft-07/schema': 'draft-07',
  'json-schema.org/draft/2019-09/schema': '2019-09',
  'json-schema.org/draft/2020-12/schema': '2020-12',
};

/** A schema Pincer will not compile, with why (written to be shown to the owner). */
export class SchemaRefusal extends Error {
  override readonly name = 'SchemaRefusal';
}

/** The dialect a schema's `$schema` names; SchemaRefusal when it names one Pincer does not know. */
export function dialectOf(schema: unknown): Dialect {
  if (!schema || typeof schema !== 'object' || !('$schema' in schema) || (schema as { $schema?: unknown }).$schema === undefined) {
    return DEFAULT_DIALECT;
  }
  const uri = (schema as { $schema: unknown }).$schema;
  const match = typeof uri === 'string' ? /^https?:\/\/(.*?)#?$/.exec(uri.trim()) : null;
  const dialect = match ? DIALECT_URIS[match[1]!] : undefined;
  if (!dialect) {
    throw new SchemaRefusal(
      `the "$schema" ${JSON.stringify(uri)} names no JSON Schema dialect Pincer knows (known: draft-04, draft-07, 2019-09, 2020-12, ` +
        `e.g. "http://json-schema.org/draft-07/schema#"; no "$schema" means 2020-12)`,
    );
  }
  return dialect;
}

/** Keywords whose values are instance data, never schemas: a `$ref` key in them is data. */
export const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);
/** Keywords whose value maps names (not keywords) to subschemas (`dependencies`: or to lists of names). */
export const MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'];
const MAX_DEPTH = 256;

/**
 * The first reference in `schema` that would leave it: anything but a fragment of this schema (`#`, `#/…`, `#name`)
 * or the schema's own `$id`. Undefined when every reference stays inside; SchemaRefusal for a schema too deep to check.
 */
export function remoteRef(schema: unknown, dialect: Dialect): { at: string; ref: string } | undefined {
  // Security: a reference below the depth looked at would go unchecked, so a deeper schema is refused outright.
  const idKey = dialect === 'draft-04' ? 'id' : '$id';
  const own = schema && typeof schema === 'object' && typeof (schema as Record<string, unknown>)[idKey] === 'string'
    ? ((schema as Record<string, unknown>)[idKey] as string).replace(/#$/, '')
    : undefined;
  const local = (ref: string) => ref.startsWith('#') || (own !== undefined && own !== '' && (ref === own || ref.startsWith(`${own}#`)));
  let found: { at: string; ref: string } | undefined;
  // Walks everything that could be a schema (an unknown keyword's value too: a `$ref` may point into it), skipping data.
  const walk = (node: unknown, at: string, depth: number): void => {
    if (found || !node || typeof node !== 'object') return;
    if (depth > MAX_DEPTH) throw new SchemaRefusal(`it nests deeper than ${MAX_DEPTH} levels (at ${at.slice(0, 200)}…)`);
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${at}/${i}`, depth + 1));
      return;
    }
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      const here = `${at}/${escapePointer(key)}`;
      if (REF_KEYWORDS.includes(key) && typeof value === 'string') {
        if (!local(value)) found = { at: here, ref: value };
      } else if (MAP_KEYWORDS.has(key) && value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, sub] of Object.entries(value as Record<string, unknown>)) walk(sub, `${here}/${escapePointer(name)}`, depth + 1);
      } else if (!DATA_KEYWORDS.has(key)) {
        walk(value, here, depth + 1);
      }
      if (found) return;
    }
  };
  walk(schema, '', 0);
  return found;
}

export const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
export const unescapePointer = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * Every `pattern` and `patternProperties` key of every tool schema runs on the linear-time engine (Ajv calls this
 * once per pattern, when a schema is compiled; the calls then only test). Ajv passes the `u` flag.
 */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string, flags: string) => compileLinear(pattern, flags), {
  code: 'compileLinear', // only read by Ajv's standalone code generation, which Pincer does not use
});

type AnyAjv = Ajv;

/** The base a schema without an id is compiled under (never looked up: references that leave a schema are refused). */
const ANONYMOUS_ID = 'pincer:/tool-schema.json';

/** What any Ajv instance checking untrusted data needs besides `code.regExp`: linear formats and uniqueItems. */
export function useLinearChecks(ajv: Pick<AnyAjv, 'addFormat' | 'removeKeyword' | 'addKeyword'>): void {
  for (const [name, format] of Object.entries(linearFormats())) ajv.addFormat(name, format as Format);
  // Security: Ajv compares every pair of items for `uniqueItems` when they may be objects or arrays, so a megabyte
  // array of small objects took hours. Here each item is reduced to a canonical text (object keys sorted) and looked
  // up in a map: linear in the array's size, with the same notion of equality (deep, key order ignored).
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
}

const uniqueItems: SchemaValidateFunction = (unique: boolean, data: unknown[]): boolean => {
  uniqueItems.errors = undefined;
  if (!unique) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      uniqueItems.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
}

// Both packages are CommonJS with `exports.default`; under NodeNext their functions arrive as `.default`.
const addFormats = ajvFormats.default as unknown as (ajv: AnyAjv) => AnyAjv;
const AjvDraft04 = ajvDraft04.default as unknown as new (options: Options) => AnyAjv;

const CLASSES: Record<Dialect, new (options: Options) => AnyAjv> = {
  'draft-04': AjvDraft04,
  'draft-07': Ajv,
  '2019-09': Ajv2019 as unknown as new (options: Options) => AnyAjv,
  '2020-12': Ajv2020 as unknown as new (options: Options) => AnyAjv,
};

/**
 * One Ajv instance per dialect, all configured alike (the linear-time patterns and formats, `strict: false`,
 * `addUsedSchema: false`, plus the caller's options), each built when a schema of its dialect first arrives.
 * The one way Pincer compiles a schema someone else wrote: tool arguments and imported tools' results alike.
 */
export class SchemaCompilers {
  readonly #instances = new Map<Dialect, AnyAjv>();

  constructor(private readonly options: Options = {}) {}

  /**
   * Compiles `schema` with its dialect's validator. Throws SchemaRefusal for an unknown `$schema` or a reference
   * that leaves the schema, PatternRefusal for a pattern the linear engine cannot run, Ajv's error otherwise.
   */
  compile(schema: SchemaObject | boolean): ValidateFunction {
    if (typeof schema === 'boolean') return this.#ajv(DEFAULT_DIALECT).compile(schema);
    const dialect = dialectOf(schema);
    const remote = remoteRef(schema, dialect);
    // Security: a reference outside the schema would be looked up among the schemas Ajv holds (or fetched by
    // whatever resolves it later); a tool's schema is whole in itself or it is refused.
    if (remote) {
      throw new SchemaRefusal(
        `the reference ${JSON.stringify(remote.ref)} (at ${remote.at}) points outside the schema; only references into the schema itself ` +
          `("#/$defs/…", "#/definitions/…", "#") are followed, so bundle what it refers to under "$defs"`,
      );
    }
    const ajv = this.#ajv(dialect);
    // The dialect is chosen already; Ajv knows each meta-schema under one spelling only (http, with "#" or not).
    const { $schema: _dialect, ...body } = schema;
    // With addUsedSchema off, Ajv cannot resolve `#` in a schema without an id: recursion on the root would fail.
    const idKey = dialect === 'draft-04' ? 'id' : '$id';
    if (typeof body[idKey] !== 'string') body[idKey] = ANONYMOUS_ID;
    // Security: Ajv files every embedded `$id` in the shared instance, where the next schema's references would
    // find it; what one compile registers is taken away again, so no tool's schema can reach into another's.
    const before = new Set(Object.keys(ajv.refs));
    try {
      return ajv.compile(body);
    } finally {
      for (const key of Object.keys(ajv.refs)) if (!before.has(key)) delete ajv.refs[key];
    }
  }

  #ajv(dialect: Dialect): AnyAjv {
    let ajv = this.#instances.get(dialect);
    if (!ajv) {
      // addUsedSchema: false keeps a compiled schema's `$id` out of the instance, so a tool whose schema has one can be
      // registered again (plugin reload, a second gateway in one process) instead of failing as a duplicate.
      ajv = new CLASSES[dialect]({ strict: false, addUsedSchema: false, ...this.options, code: { regExp: linearRegExp } });
      addFormats(ajv);
      useLinearChecks(ajv);
      this.#instances.set(dialect, ajv);
    }
    return ajv;
  }
}

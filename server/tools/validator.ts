import { Ajv2020, type ErrorObject, type Format, type ValidateFunction } from 'ajv/dist/2020.js';
import type { RegExpEngine, SchemaValidateFunction } from 'ajv/dist/types/index.js';
import * as ajvFormats from 'ajv-formats';
import { compileLinear } from './linear-regexp.js';
import { linearFormats } from './string-formats.js';
import type { ObjectSchema } from './types.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its function arrives as `.default`.
const addFormats = ajvFormats.default as unknown as (ajv: Ajv2020) => Ajv2020;

export interface ArgumentProblem {
  /** JSON Pointer to the offending value; "" is the arguments object itself. */
  path: string;
  message: string;
}

export type ArgumentValidator = (args: unknown) => { ok: true } | { ok: false; problems: ArgumentProblem[] };

/** Security: a megabyte of wrong arguments can break a hundred thousand rules; the answer (and the record) names this many. */
const MAX_PROBLEMS = 20;

/**
 * Every `pattern` and `patternProperties` key of every tool schema runs on the linear-time engine (Ajv calls this
 * once per pattern, when a schema is compiled; the calls then only test). Ajv passes the `u` flag.
 */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string, flags: string) => compileLinear(pattern, flags), {
  code: 'compileLinear', // only read by Ajv's standalone code generation, which Pincer does not use
});

/** What any Ajv instance checking untrusted data needs besides `code.regExp`: linear formats and uniqueItems. */
export function useLinearChecks(ajv: Pick<Ajv2020, 'addFormat' | 'removeKeyword' | 'addKeyword'>): void {
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

// addUsedSchema: false keeps a compiled schema's `$id` out of the shared instance, so a tool whose schema has an
// `$id` can be registered again (plugin reload, a second gateway in one process) instead of failing as a duplicate.
const ajv = new Ajv2020({
  allErrors: true,
  useDefaults: true,
  strict: false,
  coerceTypes: false,
  addUsedSchema: false,
  code: { regExp: linearRegExp },
});
addFormats(ajv);
useLinearChecks(ajv);

/**
 * Unknown properties are rejected unless a tool explicitly allows them: a model that invents an argument
 * should hear that it does not exist rather than have it silently ignored.
 */
export function closeSchema(schema: ObjectSchema): ObjectSchema {
  if (schema.additionalProperties !== undefined) return schema;
  return { ...schema, additionalProperties: false };
}

/**
 * Compiles a tool's schema once; throws with ajv's message when the schema itself is invalid, and PatternRefusal
 * when one of its patterns needs what the linear-time engine cannot do.
 */
export function compileValidator(schema: ObjectSchema): ArgumentValidator {
  const validate: ValidateFunction = ajv.compile(schema);
  return (args) => {
    if (validate(args)) return { ok: true };
    const errors = validate.errors ?? [];
    const problems = errors.slice(0, MAX_PROBLEMS).map(describeProblem);
    if (errors.length > MAX_PROBLEMS) {
      problems.push({ path: '', message: `and ${errors.length - MAX_PROBLEMS} more problems like these` });
    }
    return { ok: false, problems };
  };
}

function describeProblem(error: ErrorObject): ArgumentProblem {
  const at = error.instancePath || '';
  const where = at ? `"${at.slice(1).replaceAll('/', '.')}"` : 'arguments';
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: at, message: `unknown property "${String(error.params.additionalProperty)}" in ${where}` };
    case 'required':
      return { path: at, message: `missing required property "${String(error.params.missingProperty)}"` };
    case 'type':
      return { path: at, message: `${where} must be ${String(error.params.type)}` };
    case 'enum':
      return {
        path: at,
        message: `${where} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path: at, message: `${where} ${error.message ?? 'is invalid'}` };
  }
}

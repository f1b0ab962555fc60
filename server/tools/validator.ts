import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import type { ObjectSchema } from './types.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its function arrives as `.default`.
const addFormats = ajvFormats.default as unknown as (ajv: Ajv2020) => Ajv2020;

export interface ArgumentProblem {
  /** JSON Pointer to the offending value; "" is the arguments object itself. */
  path: string;
  message: string;
}

export type ArgumentValidator = (args: unknown) => { ok: true } | { ok: false; problems: ArgumentProblem[] };

// addUsedSchema: false keeps a compiled schema's `$id` out of the shared instance, so a tool whose schema has an
// `$id` can be registered again (plugin reload, a second gateway in one process) instead of failing as a duplicate.
const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: false, coerceTypes: false, addUsedSchema: false });
addFormats(ajv);

/**
 * Unknown properties are rejected unless a tool explicitly allows them: a model that invents an argument
 * should hear that it does not exist rather than have it silently ignored.
 */
export function closeSchema(schema: ObjectSchema): ObjectSchema {
  if (schema.additionalProperties !== undefined) return schema;
  return { ...schema, additionalProperties: false };
}

/** Compiles a tool's schema once; throws with ajv's message when the schema itself is invalid. */
export function compileValidator(schema: ObjectSchema): ArgumentValidator {
  const validate: ValidateFunction = ajv.compile(schema);
  return (args) => {
    if (validate(args)) return { ok: true };
    return { ok: false, problems: (validate.errors ?? []).map(describeProblem) };
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

import type { ErrorObject, ValidateFunction } from 'ajv';
import { SchemaCompilers } from './schema-dialects.js';
import type { ObjectSchema } from './types.js';

export interface ArgumentProblem {
  /** JSON Pointer to the offending value; "" is the arguments object itself. */
  path: string;
  message: string;
}

export type ArgumentValidator = (args: unknown) => { ok: true } | { ok: false; problems: ArgumentProblem[] };

/** Security: a megabyte of wrong arguments can break a hundred thousand rules; the answer (and the record) names this many. */
const MAX_PROBLEMS = 20;

// Shared by every tool (each schema's dialect picks its instance); built when the first schema arrives.
const compilers = new SchemaCompilers({ allErrors: true, useDefaults: true, coerceTypes: false });

/**
 * Unknown properties are rejected unless a tool explicitly allows them: a model that invents an argument
 * should hear that it does not exist rather than have it silently ignored.
 */
export function closeSchema(schema: ObjectSchema): ObjectSchema {
  if (schema.additionalProperties !== undefined) return schema;
  return { ...schema, additionalProperties: false };
}

/**
 * Compiles a tool's schema once, with the validator of the dialect its `$schema` names; throws with ajv's message
 * when the schema itself is invalid, SchemaRefusal for an unknown dialect or a reference outside the schema, and
 * PatternRefusal when one of its patterns needs what the linear-time engine cannot do.
 */
export function compileValidator(schema: ObjectSchema): ArgumentValidator {
  const validate: ValidateFunction = compilers.compile(schema);
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

import type { ElicitationField, ElicitationSchema } from '../../lib/types';

// The form an imported MCP server's question (an elicitation) asks the owner to fill in, read from its requested
// schema: flat, one input per property. Pure, so what is shown and what is sent are tested without a page.

export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';

export interface FormField {
  name: string;
  label: string;
  help: string | null;
  kind: FieldKind;
  /** The HTML input type of a text field (email, url, date, datetime-local; else text). */
  input: 'text' | 'email' | 'url' | 'date' | 'datetime-local';
  required: boolean;
  options: { value: string; label: string; raw: unknown }[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
}

/** What the inputs hold: text (a number input bound by Svelte holds a number), a flag, the chosen option's value, or the chosen values. */
export type FormValue = string | number | boolean | string[];

const INPUTS: Record<string, FormField['input']> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

function optionsOf(field: ElicitationField): FormField['options'] {
  const titled = field.oneOf ?? field.items?.anyOf;
  if (titled) return titled.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const), raw: o.const }));
  const values = field.enum ?? field.items?.enum ?? [];
  return values.map((v, i) => ({ value: String(v), label: field.enumNames?.[i] ?? String(v), raw: v }));
}

/** The schema as a list of fields, in the server's order. A schema that is not an object gives no fields. */
export function formFields(schema: Record<string, unknown> | undefined): FormField[] {
  const s = schema as ElicitationSchema | undefined;
  if (!s || typeof s.properties !== 'object' || s.properties === null) return [];
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  return Object.entries(s.properties).map(([name, field]) => {
    const options = optionsOf(field);
    const kind: FieldKind =
      field.type === 'array' ? 'choices' : options.length > 0 ? 'choice' : field.type === 'boolean' ? 'boolean' : field.type === 'integer' ? 'integer' : field.type === 'number' ? 'number' : 'text';
    return {
      name,
      label: field.title?.trim() || name,
      help: field.description?.trim() || null,
      kind,
      input: (field.format && INPUTS[field.format]) || 'text',
      required: required.has(name),
      options,
      ...(field.minimum !== undefined && { min: field.minimum }),
      ...(field.maximum !== undefined && { max: field.maximum }),
      ...(field.minLength !== undefined && { minLength: field.minLength }),
      ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
    };
  });
}

/** The inputs as first shown: the server's defaults, else empty. */
export function initialValues(schema: Record<string, unknown> | undefined): Record<string, FormValue> {
  const properties = ((schema as ElicitationSchema | undefined)?.properties ?? {}) as Record<string, ElicitationField>;
  const values: Record<string, FormValue> = {};
  for (const field of formFields(schema)) {
    const fallback = properties[field.name]?.default;
    if (field.kind === 'boolean') values[field.name] = fallback === true;
    else if (field.kind === 'choices') values[field.name] = Array.isArray(fallback) ? fallback.map(String) : [];
    else values[field.name] = fallback === undefined || fallback === null ? '' : String(fallback);
  }
  return values;
}

/**
 * The answer's content from the inputs, each value of its field's type; empty optional fields are left out.
 * Problems name the field (the gateway checks the whole schema again, and its word is final).
 */
export function contentOf(fields: readonly FormField[], values: Record<string, FormValue>): { content: Record<string, unknown> } | { problems: { field: string; message: string }[] } {
  const content: Record<string, unknown> = {};
  const problems: { field: string; message: string }[] = [];
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'boolean') {
      content[field.name] = value === true;
      continue;
    }
    if (field.kind === 'choices') {
      const chosen = Array.isArray(value) ? value : [];
      if (chosen.length === 0 && field.required) problems.push({ field: field.name, message: `${field.label}: choose at least one` });
      if (chosen.length > 0 || field.required) content[field.name] = chosen.map((v) => field.options.find((o) => o.value === v)?.raw ?? v);
      continue;
    }
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
    if (text.trim() === '') {
      if (field.required) problems.push({ field: field.name, message: `${field.label} is required` });
      continue;
    }
    if (field.kind === 'choice') {
      const option = field.options.find((o) => o.value === text);
      if (!option) problems.push({ field: field.name, message: `${field.label}: choose one of the options` });
      else content[field.name] = option.raw;
    } else if (field.kind === 'number' || field.kind === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.kind === 'integer' && !Number.isInteger(n))) problems.push({ field: field.name, message: `${field.label} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}` });
      else if ((field.min !== undefined && n < field.min) || (field.max !== undefined && n > field.max)) problems.push({ field: field.name, message: `${field.label} must be from ${field.min ?? '…'} to ${field.max ?? '…'}` });
      else content[field.name] = n;
    } else {
      if (field.minLength !== undefined && text.length < field.minLength) problems.push({ field: field.name, message: `${field.label} must be at least ${field.minLength} characters` });
      else if (field.maxLength !== undefined && text.length > field.maxLength) problems.push({ field: field.name, message: `${field.label} must be at most ${field.maxLength} characters` });
      // A datetime-local input has no zone: it is sent as the moment it means here, as date-time wants.
      else content[field.name] = field.input === 'datetime-local' ? new Date(text).toISOString() : text;
    }
  }
  return problems.length > 0 ? { problems } : { content };
}

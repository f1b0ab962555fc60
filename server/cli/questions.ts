import { UsageError } from './common.js';

/** A requested schema's field, as much of it as the CLI shows and converts. */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  format?: string;
  enum?: unknown[];
  oneOf?: { const: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const: unknown; title?: string }[] };
  minimum?: number;
  maximum?: number;
}

interface Schema {
  properties?: Record<string, Field>;
  required?: string[];
}

/** The values a field takes when it is a choice (enum, titled oneOf, or a multi-select's items). */
function choices(field: Field): unknown[] | undefined {
  const list = field.enum ?? field.oneOf?.map((o) => o.const) ?? field.items?.enum ?? field.items?.anyOf?.map((o) => o.const);
  return list;
}

/** One line per field of an elicitation's form: name, type, choices, whether required, its default and help. */
export function describeForm(schema: Schema): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const options = choices(field);
    const kind = options ? `${field.type === 'array' ? 'any of' : 'one of'} ${options.map((o) => String(o)).join(', ')}` : `${field.type ?? 'string'}${field.format ? ` (${field.format})` : ''}`;
    const range = field.minimum !== undefined || field.maximum !== undefined ? `, ${field.minimum ?? '…'} to ${field.maximum ?? '…'}` : '';
    const label = field.title && field.title !== name ? ` "${field.title}"` : '';
    const help = field.description ? ` — ${field.description}` : '';
    const fallback = field.default !== undefined ? `, default ${JSON.stringify(field.default)}` : '';
    return `  ${name}${label}: ${kind}${range}${required.has(name) ? ', required' : ''}${fallback}${help}`;
  });
}

/**
 * Turns `--set name=value` pairs into the answer's content, each value read as its field's type says (a number, a
 * boolean, a comma-separated list for a multi-select); the gateway checks the result against the schema.
 */
export function contentFrom(pairs: readonly string[], schema: Schema): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  const properties = schema.properties ?? {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--set takes name=value, got "${pair}"`);
    const name = pair.slice(0, at);
    const raw = pair.slice(at + 1);
    const field = properties[name];
    if (!field) throw new UsageError(`the form has no field "${name}"; its fields are ${Object.keys(properties).join(', ') || 'none'}`);
    content[name] = convert(name, raw, field);
  }
  return content;
}

function convert(name: string, raw: string, field: Field): unknown {
  switch (field.type) {
    case 'number':
    case 'integer': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${name} is a number, got "${raw}"`);
      return value;
    }
    case 'boolean':
      if (['true', 'yes', 'on', '1'].includes(raw.toLowerCase())) return true;
      if (['false', 'no', 'off', '0'].includes(raw.toLowerCase())) return false;
      throw new UsageError(`${name} is true or false, got "${raw}"`);
    case 'array':
      return raw === '' ? [] : raw.split(',').map((v) => v.trim());
    default:
      return raw;
  }
}

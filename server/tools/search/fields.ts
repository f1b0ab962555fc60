import { namePrefix, nameWords, splitName, words, type Word } from './text.js';

/** What the index knows of a tool. */
export interface IndexedTool {
  name: string;
  title?: string;
  description: string;
  /** `builtin`, `plugin:<name>` or `mcp:<server>`. */
  source: string;
  risk: 'safe' | 'sensitive' | 'dangerous';
  /** The tool's JSON Schema for its arguments. */
  parameters: unknown;
}

/** The parts of a tool that are indexed, each weighted on its own (see ranking.ts). */
export const Field = { name: 0, title: 1, source: 2, summary: 3, description: 4, parameterNames: 5, parameterText: 6 } as const;
export const FIELD_COUNT = 7;

/** A long description's words past this many add nothing a model would search for. */
const MAX_FIELD_WORDS = 600;
/** Text read per field (a huge description or schema must not stall an update). */
const MAX_FIELD_TEXT = 20_000;
/** Parameters read per tool. */
const MAX_PARAMETERS = 200;
/** Enum values this short are words a request may use (`daily`, `markdown`); longer ones are data. */
const MAX_ENUM_LENGTH = 40;

/** A tool's words, by field (`Field` indexes the array). */
export function toolFields(tool: IndexedTool): Word[][] {
  const prefix = namePrefix(tool.name);
  const ownName = prefix === undefined ? tool.name : tool.name.slice(prefix.length + 2);
  const server = tool.source.replace(/^(mcp|plugin):/, '');
  const source = [...new Set([...(prefix ? splitName(prefix) : []), ...(tool.source === 'builtin' ? [] : splitName(server))])];
  const names: string[] = [];
  const texts: string[] = [];
  collectParameters(tool.parameters, names, texts, 0);
  const fields: Word[][] = [];
  fields[Field.name] = nameWords(ownName);
  fields[Field.title] = words((tool.title ?? '').slice(0, MAX_FIELD_TEXT));
  fields[Field.source] = words(source.join(' '));
  const [summary, details] = splitSummary(tool.description.slice(0, MAX_FIELD_TEXT));
  fields[Field.summary] = words(summary);
  fields[Field.description] = words(details);
  fields[Field.parameterNames] = names.flatMap(nameWords);
  fields[Field.parameterText] = words(texts.join(' \n ').slice(0, MAX_FIELD_TEXT));
  return fields.map((list) => (list.length > MAX_FIELD_WORDS ? list.slice(0, MAX_FIELD_WORDS) : list));
}

/** Longest first sentence read as the summary of what a tool does. */
const MAX_SUMMARY = 300;

/**
 * A description's first sentence (what the tool does) and the rest (how to use it, what it returns, caveats): the
 * first says more about which tool a request means.
 */
function splitSummary(description: string): [string, string] {
  const text = description.trim();
  const end = text.slice(0, MAX_SUMMARY).search(/[.!?。！？](?:\s|$)|\n\s*\n/);
  const at = end < 0 ? Math.min(text.length, MAX_SUMMARY) : end + 1;
  return [text.slice(0, at), text.slice(at)];
}

/** Property names and their descriptions (and short enum values): the top level, one level of nesting, `items`. */
function collectParameters(schema: unknown, names: string[], texts: string[], depth: number): void {
  if (!isObject(schema) || depth > 1) return;
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      if (names.length >= MAX_PARAMETERS) return;
      names.push(name);
      describe(property, texts);
      if (isObject(property)) {
        collectParameters(property, names, texts, depth + 1);
        const items = property.items;
        if (isObject(items)) {
          describe(items, texts);
          collectParameters(items, names, texts, depth + 1);
        }
      }
    }
  }
}

function describe(schema: unknown, texts: string[]): void {
  if (!isObject(schema)) return;
  if (typeof schema.description === 'string') texts.push(schema.description);
  if (typeof schema.title === 'string') texts.push(schema.title);
  if (Array.isArray(schema.enum)) {
    for (const value of schema.enum) if (typeof value === 'string' && value.length <= MAX_ENUM_LENGTH) texts.push(value);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

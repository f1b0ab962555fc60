import type { CallShape, NameResolver, RecoveredCall } from '../types.js';

/**
 * One region of a model's text that is call markup, [start, end), and the calls it holds. The calls carry the names
 * as the model wrote them: recover.ts resolves them, and drops the whole match when any name is not an offered tool.
 */
export interface ShapeMatch {
  start: number;
  end: number;
  calls: RecoveredCall[];
}

/** Finds the calls of one model family's shape in a text. */
export interface ShapeParser {
  shape: CallShape;
  /** `resolve` lets a parser with an ambiguous shape (a bare JSON object) skip what can only be prose. */
  find(text: string, resolve: NameResolver): ShapeMatch[];
}

/** A found call with its name as written; recover.ts resolves it. */
export function writtenCall(name: string, args: unknown, shape: CallShape): RecoveredCall {
  return { name: name.trim(), arguments: args, shape };
}

/** Whether every item is defined: a match counts only when all of its calls could be read. */
export function allDefined<T>(items: readonly (T | undefined)[]): items is T[] {
  return items.every((item) => item !== undefined);
}

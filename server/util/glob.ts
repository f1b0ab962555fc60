/**
 * A small glob matcher for file_list. No regular expressions are built from the pattern, so a hostile pattern
 * (`*a*a*a*a*b` against a long name) costs at most O(pattern × name) per segment instead of backtracking
 * exponentially; `**` is matched over segments with memoisation for the same reason.
 *
 * Syntax: `*` any run of characters except `/`; `**` as a whole segment: any number of folders; `?` one
 * character; `[abc]`, `[a-z]`, `[!a]` / `[^a]` one character from a set; `{a,b}` alternatives (may nest);
 * `\` escapes the next character.
 */

export const MAX_GLOB_LENGTH = 1000;
const MAX_ALTERNATIVES = 256;

export class GlobError extends Error {}

type Token =
  | { kind: 'char'; value: string }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'set'; negated: boolean; items: Array<[string, string]> };

type Segment = { kind: 'globstar' } | { kind: 'tokens'; tokens: Token[] };

/** Compiles a pattern into a predicate over `/`-separated relative paths. */
export function compileGlob(pattern: string): (relativePath: string) => boolean {
  if (pattern.length === 0) throw new GlobError('The pattern is empty.');
  if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`The pattern is longer than ${MAX_GLOB_LENGTH} characters.`);
  const compiled = expandBraces(pattern).map((alternative) =>
    alternative
      .split('/')
      .filter((part) => part !== '' && part !== '.')
      .map(parseSegment),
  );
  return (relativePath) => {
    const parts = relativePath.split('/').filter((part) => part !== '');
    return compiled.some((segments) => matchSegments(segments, parts));
  };
}

/** `{a,b}c` → `ac`, `bc`; nested braces expand from the inside out. Throws GlobError past the limits. */
export function expandBraces(pattern: string): string[] {
  let results = [pattern];
  for (let guard = 0; guard < 64; guard++) {
    let changed = false;
    const next: string[] = [];
    for (const item of results) {
      const group = innermostBraces(item);
      if (!group) {
        next.push(item);
        continue;
      }
      changed = true;
      const [start, end, options] = group;
      for (const option of options) next.push(item.slice(0, start) + option + item.slice(end + 1));
      if (next.length > MAX_ALTERNATIVES) throw new GlobError(`The pattern expands to more than ${MAX_ALTERNATIVES} alternatives.`);
    }
    results = next;
    if (!changed) return results;
  }
  throw new GlobError('The pattern nests braces too deeply.');
}

/** The first `{…}` holding a comma and no other brace, as [start, end, options]; escapes are respected. */
function innermostBraces(text: string): [number, number, string[]] | undefined {
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') open = i;
    else if (c === '}' && open >= 0) {
      const options = splitTopLevel(text.slice(open + 1, i));
      if (options.length > 1) return [open, i, options];
      open = -1;
    }
  }
  return undefined;
}

function splitTopLevel(body: string): string[] {
  const options: string[] = [];
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && i + 1 < body.length) {
      current += c + body[i + 1];
      i++;
    } else if (c === ',') {
      options.push(current);
      current = '';
    } else current += c;
  }
  options.push(current);
  return options;
}

function parseSegment(text: string): Segment {
  if (text === '**') return { kind: 'globstar' };
  const tokens: Token[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) tokens.push({ kind: 'char', value: text[++i]! });
    else if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const set = parseSet(text, i);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else tokens.push({ kind: 'char', value: c });
    } else tokens.push({ kind: 'char', value: c });
  }
  return { kind: 'tokens', tokens };
}

function parseSet(text: string, start: number): { token: Token; end: number } | undefined {
  let i = start + 1;
  const negated = text[i] === '!' || text[i] === '^';
  if (negated) i++;
  const items: Array<[string, string]> = [];
  let first = true;
  for (; i < text.length; i++) {
    let c = text[i]!;
    if (c === ']' && !first) return { token: { kind: 'set', negated, items }, end: i };
    first = false;
    if (c === '\\' && i + 1 < text.length) c = text[++i]!;
    if (text[i + 1] === '-' && i + 2 < text.length && text[i + 2] !== ']') {
      let hi = text[i + 2]!;
      i += 2;
      if (hi === '\\' && i + 1 < text.length) hi = text[++i]!;
      items.push([c, hi]);
    } else items.push([c, c]);
  }
  return undefined;
}

function matchSegments(segments: Segment[], parts: string[]): boolean {
  const memo = new Map<number, boolean>();
  const go = (si: number, pi: number): boolean => {
    const key = si * (parts.length + 1) + pi;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const segment = segments[si];
    if (segment === undefined) result = pi === parts.length;
    else if (segment.kind === 'globstar') {
      result = false;
      for (let skip = pi; skip <= parts.length && !result; skip++) result = go(si + 1, skip);
    } else result = pi < parts.length && matchTokens(segment.tokens, parts[pi]!) && go(si + 1, pi + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

/** Wildcard matching by dynamic programming over code points: O(tokens × name), no backtracking. */
function matchTokens(tokens: Token[], name: string): boolean {
  const chars = [...name];
  let row = new Array<boolean>(chars.length + 1).fill(false);
  row[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(chars.length + 1).fill(false);
    if (token.kind === 'star') {
      let reachable = false;
      for (let j = 0; j <= chars.length; j++) {
        reachable ||= row[j]!;
        next[j] = reachable;
      }
    } else {
      for (let j = 0; j < chars.length; j++) if (row[j] && tokenMatches(token, chars[j]!)) next[j + 1] = true;
    }
    row = next;
  }
  return row[chars.length]!;
}

function tokenMatches(token: Exclude<Token, { kind: 'star' }>, char: string): boolean {
  switch (token.kind) {
    case 'char':
      return token.value === char;
    case 'any':
      return true;
    case 'set': {
      const inside = token.items.some(([lo, hi]) => char >= lo && char <= hi);
      return inside !== token.negated;
    }
  }
}

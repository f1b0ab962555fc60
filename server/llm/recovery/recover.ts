import { findFences } from './shapes/fences.js';
import { SHAPE_PARSERS, type ShapeMatch } from './shapes/index.js';
import { BARE_CALL_START } from './shapes/pythonic.js';
import type { NameResolver, RecoveredCall, Recovery } from './types.js';

/**
 * Every shape's markup holds one of these, or the reply opens like a bare call (`get_time(`); a reply with neither is
 * prose (the common case, kept cheap).
 */
const MARKUP_CHARS = /[<[{`]/;

/**
 * Finds the tool calls written as text in a model's reply, in any family's shape, and the prose around them.
 * A region counts only when every call in it names an offered tool; otherwise it stays text, whole. Where regions
 * overlap, the one starting first wins, then the longer. With no calls found, the text is returned as it was.
 */
export function recoverToolCalls(text: string, resolve: NameResolver): Recovery {
  if (!MARKUP_CHARS.test(text) && !BARE_CALL_START.test(text)) return { calls: [], text };
  const found: (ShapeMatch & { order: number; offered: boolean })[] = [];
  SHAPE_PARSERS.forEach((parser, order) => {
    for (const match of parser.find(text, resolve)) {
      if (match.end <= match.start || match.calls.length === 0) continue;
      const calls = resolved(match.calls, resolve);
      found.push({ ...match, calls: calls ?? match.calls, order, offered: calls !== undefined });
    }
  });
  found.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
  // Regions are taken before names are checked: markup naming an unoffered tool stays text whole, and no other
  // shape may take a piece of it (the JSON inside a <tool_call> block is also a bare JSON object).
  const regions: typeof found = [];
  for (const match of found) {
    if (match.start >= (regions.at(-1)?.end ?? 0)) regions.push(match);
  }
  const accepted = regions.filter((m) => m.offered);
  if (accepted.length === 0) return { calls: [], text };
  return { calls: accepted.flatMap((m) => m.calls), text: withoutRegions(text, withFences(text, accepted).map((r) => withWrapper(text, r))) };
}

/** An opening tag just before a region (`<function_call>`, `<tools>`, `<|tool|>`), or Phi's `functools` prefix. */
const WRAPPER_OPEN = /(?:<\|?([A-Za-z][\w-]{0,30})\|?>|\bfunctools)\s*$/;

/**
 * A call written inside a tag pair of a family not named here (`<function_call>{…}</function_call>`, `<tools>…`) or
 * after Phi's `functools` takes the wrapper with it: the call runs, and no stray tags are left for the user.
 */
function withWrapper(text: string, region: ShapeMatch): ShapeMatch {
  const before = WRAPPER_OPEN.exec(text.slice(Math.max(0, region.start - 48), region.start));
  if (!before) return region;
  const start = region.start - before[0].length;
  const tag = before[1];
  if (tag === undefined) return { ...region, start };
  const close = new RegExp(`^\\s*<\\|?/${tag}\\|?>`).exec(text.slice(region.end, region.end + 48));
  return close ? { ...region, start, end: region.end + close[0].length } : region;
}

/** A region that is all a code fence holds takes the fence with it (models wrap calls in ``` too). */
function withFences(text: string, regions: readonly ShapeMatch[]): ShapeMatch[] {
  const fences = findFences(text);
  if (fences.length === 0) return [...regions];
  // Both are in text order, so one walk pairs each region with the only fence that could hold it.
  let k = 0;
  return regions.map((region) => {
    while (k < fences.length && fences[k]!.end < region.end) k++;
    const fence = fences[k];
    const alone = fence && fence.start < region.start && fence.body.trim() === text.slice(region.start, region.end);
    return alone ? { ...region, start: fence.start, end: fence.end } : region;
  });
}

/** The calls with offered names, or undefined when any name is not an offered tool. */
function resolved(calls: RecoveredCall[], resolve: NameResolver): RecoveredCall[] | undefined {
  const out: RecoveredCall[] = [];
  for (const call of calls) {
    const name = resolve(call.name);
    if (name === undefined) return undefined;
    out.push({ name, ...(name !== call.name && { writtenName: call.name }), arguments: call.arguments, shape: call.shape });
  }
  return out;
}

/**
 * The text with the regions cut out. The whitespace on both sides of a cut becomes one separator: a blank line
 * when either side had one, else a line break when either had one, else a space, so a cut never leaves double
 * blank lines.
 */
function withoutRegions(text: string, regions: readonly ShapeMatch[]): string {
  let out = '';
  let from = 0;
  for (const region of regions) {
    out = join(out, text.slice(from, region.start));
    from = region.end;
  }
  return join(out, text.slice(from)).trim();
}

function join(left: string, right: string): string {
  const kept = left.trimEnd();
  const rest = right.trimStart();
  const lineBreaks = Math.max(breaks(left.slice(kept.length)), breaks(right.slice(0, right.length - rest.length)));
  // Between two regions the separator stays for the next cut to weigh; the final trim drops it at the ends.
  return kept + (lineBreaks >= 2 ? '\n\n' : lineBreaks === 1 ? '\n' : ' ') + rest;
}

function breaks(space: string): number {
  return space.split('\n').length - 1;
}

// A source's tools in words, whatever the kind: their order, what the owner can accept, what the list's heading
// says, and what a definition hides. Pure, so it is tested without a browser.
import type { SourceRisk, SourceToolStatus, SourceToolView, SourceView } from '../../../../server/contract/sources';
import type { Source } from '../../state/sources.svelte';

/** The risks the owner can rate a tool: safe runs without asking, the others ask the owner each call. */
export const RISKS: readonly SourceRisk[] = ['safe', 'sensitive', 'dangerous'];

/** One tool as its row shows it: the shared view, and what only its kind says of it. */
export interface ToolLine {
  tool: SourceToolView;
  /** For a server's tool whose definition changed: what the owner accepted, and what it says now. */
  change: { field: string; before: unknown; after: unknown }[] | null;
  /** For a plugin's tool: the risk its manifest declares, which `raised_because` explains the raise from. */
  declared: string | null;
}

const ORDER: Record<SourceToolStatus, number> = { held: 0, invalid: 1, active: 2, inactive: 3, disabled: 4 };

/** Held back first, then invalid ones, the active, the inactive, and those turned off; by name within each. */
export function toolLines(source: Source): ToolLine[] {
  const lines = source.view.tools.map((tool): ToolLine => {
    if (source.kind === 'mcp') {
      const own = source.server.tools.find((t) => t.name === tool.name);
      return { tool, change: own?.change ?? null, declared: null };
    }
    return { tool, change: null, declared: source.plugin.tools.find((t) => t.name === tool.name)?.declared_risk ?? null };
  });
  return lines.sort((a, b) => ORDER[a.tool.status] - ORDER[b.tool.status] || a.tool.name.localeCompare(b.tool.name));
}

/** The owner can accept it on its own: it is not accepted as it is now (one they turned off included), and it is valid. */
export const canAccept = (tool: SourceToolView): boolean => !tool.accepted && tool.status !== 'invalid';

/**
 * The tools "Accept all waiting" accepts, as the gateway counts them: held back, or never rated by the owner. One the
 * owner turned off is left alone (accepting it takes naming it), and an invalid one cannot be accepted.
 */
export const waitingTools = (view: SourceView): SourceToolView[] =>
  view.tools.filter((t) => !t.accepted && t.status !== 'disabled' && t.status !== 'invalid');

/** What the tools' heading says after their count when some cannot be called ("off until you accept it"), or null. */
export function toolsNote(view: SourceView): string | null {
  if (view.status === 'held') return 'off until you accept it';
  const held = view.tools.filter((t) => t.status === 'held').length;
  if (held > 0) return `${held} held back until you accept ${held === 1 ? 'it' : 'them'}`;
  if (view.status === 'disabled') return 'off';
  return view.status === 'running' || view.status === 'starting' ? null : 'not running';
}

/** Why a source lists no tools. */
export function noToolsInWords(view: SourceView): string {
  switch (view.status) {
    case 'disabled':
      return 'None while it is disabled: its tools are not imported.';
    case 'starting':
    case 'restarting':
      return 'Reading its tools once it is up…';
    case 'running':
      return 'It offers none.';
    case 'held':
      return 'It declares none.';
    default:
      return 'None: it is not running.';
  }
}

/** A piece of a description: text as it is, or a character that shows nothing, named so the owner sees it is there. */
export type Revealed = { text: string } | { hidden: string };

// Zero-width, bidirectional and Unicode tag characters: they hide text from a reader but not from the model.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

/** Splits a description at its invisible characters, each one named by its code point (`U+200B`). */
export function revealInvisible(text: string): Revealed[] {
  const parts: Revealed[] = [];
  let last = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ hidden: `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` });
    last = match.index + match[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push({ text: text.slice(last) });
  return parts;
}

// Tool sources in words, whatever their kind: one status vocabulary with its looks, the filter per kind, the order
// that puts what waits for the owner first, and the header's summary. Pure, so it is tested without a browser.
import type { HeldBecause, SourceKind, SourceStatus, SourceToolStatus } from '../../../../server/contract/sources';
import type { Look } from '../../lib/look';
import type { Source } from '../../state/sources.svelte';

/** What a held source or tool waits for, as its badge says it. */
const HELD: Record<HeldBecause, { icon: string; tone: Look['tone']; hint: string }> = {
  new: { icon: '+', tone: 'wait', hint: 'Seen for the first time: held back until you accept it' },
  changed: { icon: '±', tone: 'wait', hint: 'Changed since you accepted it: held back until you accept the change' },
  flagged: { icon: '⚑', tone: 'fail', hint: 'Its definition reads like instructions to the model: held back until you accept it' },
};

/** Colour is never the only signal: each status has its own icon and word. */
const SOURCE_LOOKS: Record<Exclude<SourceStatus, 'held'>, Look> = {
  running: { icon: '✓', label: 'running', tone: 'ok', hint: 'Its accepted tools are on and can be called' },
  starting: { icon: '◌', label: 'starting', tone: 'run', hint: 'Checking it, starting it (or connecting to it) and reading its tools' },
  restarting: { icon: '↻', label: 'restarting', tone: 'wait', hint: 'It stopped answering or its process ended; Pincer starts it again, waiting longer after each failure' },
  failed: { icon: '✕', label: 'failed', tone: 'fail', hint: 'It could not load or start, or is not valid: the reason says why' },
  disabled: { icon: '–', label: 'disabled', tone: 'neutral', hint: 'Turned off by you: its tools cannot be called' },
  stopped: { icon: '■', label: 'stopped', tone: 'neutral', hint: 'Not running in this gateway' },
};

const TOOL_LOOKS: Record<Exclude<SourceToolStatus, 'held'>, Look> = {
  active: { icon: '✓', label: 'active', tone: 'ok', hint: 'On: it can be called through Pincer' },
  inactive: { icon: '○', label: 'inactive', tone: 'neutral', hint: 'Nothing holds it back, but its source is not running' },
  disabled: { icon: '–', label: 'disabled', tone: 'neutral', hint: 'Turned off by you: off until you accept it again' },
  invalid: { icon: '✕', label: 'invalid', tone: 'fail', hint: 'It cannot be imported: the problem says why' },
};

function heldLook(because: HeldBecause | null): Look {
  const held = HELD[because ?? 'new'];
  return { icon: held.icon, label: because ? `held · ${because}` : 'held', tone: held.tone, hint: held.hint };
}

/** How a source's status shows; a held one says why it is held. */
export const sourceLook = (status: SourceStatus, because: HeldBecause | null): Look =>
  status === 'held' ? heldLook(because) : SOURCE_LOOKS[status];

/** How a tool's status shows, in the same words for every kind of source. */
export const toolLook = (status: SourceToolStatus, because: HeldBecause | null): Look =>
  status === 'held' ? heldLook(because) : TOOL_LOOKS[status];

export const KIND_WORDS: Record<SourceKind, { one: string; many: string }> = {
  plugin: { one: 'plugin', many: 'plugins' },
  mcp: { one: 'MCP server', many: 'MCP servers' },
};

/** The view's filter: every source, or one kind. */
export type KindFilter = 'all' | SourceKind;

/** Each filter with its address after `#/sources` (so a filtered list can be bookmarked) and its label. */
export const FILTERS: readonly { id: KindFilter; detail: string; label: string }[] = [
  { id: 'all', detail: '', label: 'All' },
  { id: 'plugin', detail: 'plugins', label: 'Plugins' },
  { id: 'mcp', detail: 'mcp', label: 'MCP servers' },
];

/** The filter an address names (`plugins` in `#/sources/plugins`); anything else shows every source. */
export const filterOf = (detail: string): KindFilter => FILTERS.find((f) => f.detail === detail)?.id ?? 'all';

export const shownBy = (filter: KindFilter) => (source: Source): boolean => filter === 'all' || source.kind === filter;

/** How many sources each filter shows, and how many of those wait for the owner. */
export function countsByFilter(sources: readonly Source[]): Record<KindFilter, { all: number; waiting: number }> {
  const count = (filter: KindFilter) => {
    const shown = sources.filter(shownBy(filter));
    return { all: shown.length, waiting: shown.filter(needsOwner).length };
  };
  return { all: count('all'), plugin: count('plugin'), mcp: count('mcp') };
}

/** It waits for the owner: held as a whole, or some of its tools are. */
export const needsOwner = (source: Source): boolean => source.view.status === 'held' || source.view.tools.some((t) => t.status === 'held');

/** Failed, restarting, or running with an error (a server whose tools could not be listed). */
export const inTrouble = (source: Source): boolean =>
  source.view.status === 'failed' || source.view.status === 'restarting' || (source.kind === 'mcp' && source.view.status === 'running' && source.view.reason !== null);

/** Its card's edge: its status's tone, but a running source with tools held back waits for the owner. */
export function toneOf(source: Source): Look['tone'] {
  const look = sourceLook(source.view.status, source.view.held_because);
  return look.tone === 'ok' && needsOwner(source) ? 'wait' : look.tone;
}

const KIND_ORDER: Record<SourceKind, number> = { plugin: 0, mcp: 1 };
const ORDER: Record<SourceStatus, number> = { held: 0, failed: 1, restarting: 1, starting: 2, running: 3, stopped: 4, disabled: 4 };

/** What waits for the owner first, then what is in trouble, then the rest; by name within each, plugins first on a tie. */
export function byAttention(sources: readonly Source[]): Source[] {
  const rank = (s: Source) => (needsOwner(s) ? 0 : ORDER[s.view.status]);
  return [...sources].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
}

const counted = (n: number, kind: SourceKind) => `${n} ${n === 1 ? KIND_WORDS[kind].one : KIND_WORDS[kind].many}`;

/** The header's line: "2 plugins, 1 MCP server, 3 running, 1 waiting for you, 1 in trouble" (the parts that are not zero). */
export function summary(sources: readonly Source[]): string {
  const count = (test: (s: Source) => boolean) => sources.filter(test).length;
  const plugins = count((s) => s.kind === 'plugin');
  const servers = count((s) => s.kind === 'mcp');
  const running = count((s) => s.view.status === 'running');
  const waiting = count(needsOwner);
  const trouble = count(inTrouble);
  return [
    (plugins > 0 || servers === 0) && counted(plugins, 'plugin'),
    servers > 0 && counted(servers, 'mcp'),
    running > 0 && `${running} running`,
    waiting > 0 && `${waiting} waiting for you`,
    trouble > 0 && `${trouble} in trouble`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** Where a tool's code comes from, for the approval card; null for Pincer's own tools. */
export function sourceInWords(source: string | undefined): { kind: string; name: string } | null {
  if (!source || source === 'builtin') return null;
  const colon = source.indexOf(':');
  const [prefix, name] = colon < 0 ? [source, ''] : [source.slice(0, colon), source.slice(colon + 1)];
  if (prefix === 'plugin') return { kind: 'plugin', name };
  if (prefix === 'mcp') return { kind: 'MCP server', name };
  return { kind: prefix, name };
}

/** "it is marked destructive and its plugin reaches files beyond its own folder" */
export function joinReasons(reasons: readonly string[]): string {
  if (reasons.length <= 1) return reasons[0] ?? '';
  return `${reasons.slice(0, -1).join(', ')} and ${reasons.at(-1)}`;
}

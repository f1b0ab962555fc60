import { VIEWS } from './router.svelte';

// Every key the dashboard answers, in one list: the views' handlers look their keys up here, and the Live footer
// and the `?` overlay are written from it, so what they say cannot drift from what the keys do.

/** One thing a key (or a few keys) does in a view. `native`: the focused control does it itself (Enter on a row). */
export interface Shortcut<A extends string = string> {
  action: A;
  keys: readonly string[];
  does: string;
  native?: true;
}

/** Opens and closes the list of every key. */
export const HELP_KEY = '?';

export const LIVE_KEYS = [
  { action: 'search', keys: ['/'], does: 'search' },
  { action: 'down', keys: ['j', 'ArrowDown'], does: 'next call' },
  { action: 'up', keys: ['k', 'ArrowUp'], does: 'previous call' },
  { action: 'toggle', keys: ['Enter'], does: 'open or close', native: true },
  { action: 'collapse', keys: ['Escape'], does: 'close all' },
  { action: 'pause', keys: ['p'], does: 'pause' },
] as const satisfies readonly Shortcut[];

export const APPROVAL_KEYS = [
  { action: 'down', keys: ['j', 'ArrowDown'], does: 'next approval' },
  { action: 'up', keys: ['k', 'ArrowUp'], does: 'previous approval' },
  { action: 'allow', keys: ['a'], does: 'allow once' },
  { action: 'always', keys: ['A'], does: 'always allow…' },
  { action: 'deny', keys: ['d'], does: 'deny' },
  { action: 'message', keys: ['m'], does: 'deny with a message' },
  { action: 'back', keys: ['Escape'], does: 'back to the buttons' },
] as const satisfies readonly Shortcut[];

export const TOOLS_KEYS = [{ action: 'search', keys: ['/'], does: 'search' }] as const satisfies readonly Shortcut[];

export type LiveAction = (typeof LIVE_KEYS)[number]['action'];
export type ApprovalAction = (typeof APPROVAL_KEYS)[number]['action'];

/** The action a key stands for in this list; undefined for another key, or one the focused control handles. */
export function actionFor<A extends string>(list: readonly Shortcut<A>[], key: string): A | undefined {
  const found = list.find((s) => s.keys.includes(key));
  return found && !found.native ? found.action : undefined;
}

const KEY_NAMES: Record<string, string> = { ArrowDown: '↓', ArrowUp: '↑', Escape: 'Esc' };

/** A key as it is printed on a keyboard: "↓" for ArrowDown, "Esc" for Escape. */
export function keyName(key: string): string {
  return KEY_NAMES[key] ?? key;
}

/** The number keys that switch views, as one range: "1–9". */
export const VIEW_KEY_RANGE = `${VIEWS[0].key}–${VIEWS[VIEWS.length - 1]!.key}`;

/** A view's keys, and the keys every view answers. */
export interface KeyGroup {
  title: string;
  shortcuts: readonly { keys: readonly string[]; does: string }[];
}

/** Everything the `?` overlay lists: each view and its number key, the keys every view answers, each view's own. */
export const KEY_GROUPS: readonly KeyGroup[] = [
  { title: 'Views', shortcuts: VIEWS.map((v) => ({ keys: [v.key], does: v.label })) },
  { title: 'Everywhere', shortcuts: [{ keys: [HELP_KEY], does: 'show or hide this list' }] },
  { title: 'Live', shortcuts: LIVE_KEYS },
  { title: 'Approvals', shortcuts: APPROVAL_KEYS },
  { title: 'Tools', shortcuts: TOOLS_KEYS },
];

/** The Live footer's line: its own keys, then the view keys and the help key. */
export const LIVE_FOOTER: readonly { keys: readonly string[]; does: string }[] = [
  ...LIVE_KEYS,
  { keys: [VIEW_KEY_RANGE], does: 'views' },
  { keys: [HELP_KEY], does: 'all keys' },
];

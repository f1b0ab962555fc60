import { describe, expect, it } from 'vitest';
import { VIEWS } from '../../../renderer/src/state/router.svelte';
import { actionFor, APPROVAL_KEYS, HELP_KEY, KEY_GROUPS, keyName, LIVE_FOOTER, LIVE_KEYS, TOOLS_KEYS, VIEW_KEY_RANGE } from '../../../renderer/src/state/shortcuts';

describe('the one list of views and keys', () => {
  it('lists every view with its own key, in the order of the navigation', () => {
    const views = KEY_GROUPS.find((g) => g.title === 'Views')!;
    expect(views.shortcuts.map((s) => [s.keys[0], s.does])).toEqual(VIEWS.map((v) => [v.key, v.label]));
    expect(new Set(VIEWS.map((v) => v.key)).size).toBe(VIEWS.length);
  });

  it('the Live footer names the range of every view key and the key that lists them all', () => {
    expect(VIEW_KEY_RANGE).toBe(`${VIEWS[0].key}–${VIEWS.at(-1)!.key}`);
    expect(LIVE_FOOTER).toContainEqual({ keys: [VIEW_KEY_RANGE], does: 'views' });
    expect(LIVE_FOOTER).toContainEqual({ keys: [HELP_KEY], does: 'all keys' });
    for (const shortcut of LIVE_KEYS) expect(LIVE_FOOTER).toContainEqual(shortcut);
  });

  it("no view gives a key two meanings, or takes a key the whole page answers (a view's number, ?)", () => {
    const global = new Set<string>([HELP_KEY, ...VIEWS.map((v) => v.key)]);
    for (const list of [LIVE_KEYS, APPROVAL_KEYS, TOOLS_KEYS]) {
      const keys = list.flatMap((s) => s.keys);
      expect(new Set(keys).size, keys.join(' ')).toBe(keys.length);
      for (const key of keys) expect(global.has(key), key).toBe(false);
    }
  });

  it('finds the action a key stands for; a key the focused control handles, or an unknown one, is none', () => {
    expect(actionFor(LIVE_KEYS, 'j')).toBe('down');
    expect(actionFor(LIVE_KEYS, 'ArrowUp')).toBe('up');
    expect(actionFor(LIVE_KEYS, 'Enter')).toBeUndefined();
    expect(actionFor(LIVE_KEYS, 'x')).toBeUndefined();
    expect(actionFor(APPROVAL_KEYS, 'A')).toBe('always');
    expect(actionFor(APPROVAL_KEYS, 'a')).toBe('allow');
  });

  it('prints keys as a keyboard shows them', () => {
    expect([keyName('ArrowDown'), keyName('ArrowUp'), keyName('Escape'), keyName('p')]).toEqual(['↓', '↑', 'Esc', 'p']);
  });
});

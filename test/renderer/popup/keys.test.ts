import { describe, expect, it } from 'vitest';
import { DECIDING_KEYS, popupAction } from '../../../renderer/src/popup/keys.js';

describe('popupAction: the dashboard approval keys', () => {
  it('a allows once, A opens the scope picker, d denies, m opens the message field', () => {
    expect(['a', 'A', 'd', 'm'].map((key) => popupAction(key, false, true))).toEqual(['allow_once', 'always', 'deny', 'deny_with_message']);
  });

  it('other keys are not the popup’s', () => {
    for (const key of ['x', 'D', 'Enter', ' ', 'j', 'ArrowDown']) expect(popupAction(key, false, true)).toBeNull();
  });

  it('with the scope picker or the message field open, no key decides (it may be meant for the form)', () => {
    for (const key of ['a', 'A', 'd', 'm']) expect(popupAction(key, true, true)).toBeNull();
  });

  it('every key that answers is held back while the popup settles', () => {
    expect([...DECIDING_KEYS].sort()).toEqual(['A', 'a', 'd', 'm']);
  });
});

describe('popupAction: Escape', () => {
  it('goes back from an open panel, in the desktop app and in a browser', () => {
    expect(popupAction('Escape', true, true)).toBe('back');
    expect(popupAction('Escape', true, false)).toBe('back');
  });

  it('closes the window where the page can (the desktop app)', () => {
    expect(popupAction('Escape', false, true)).toBe('close');
  });

  it('does nothing in a browser, whose window the page cannot close', () => {
    expect(popupAction('Escape', false, false)).toBeNull();
  });
});

export type PopupAction = 'allow_once' | 'always' | 'deny' | 'deny_with_message' | 'back' | 'close';

/** The keys that answer (or open a way to answer): ignored while the popup settles, and when held down. */
export const DECIDING_KEYS: readonly string[] = ['a', 'A', 'd', 'm'];

/**
 * What a key means in the popup (the caller has checked it is a page shortcut, see lib/keys): the dashboard's
 * approval keys (`a` allow once, `A` always allow, `d` deny, `m` deny with a message), and Escape — back from the
 * scope picker or the message field (`panelOpen`), else close the window where the page can. null: not the popup's.
 */
export function popupAction(key: string, panelOpen: boolean, canClose: boolean): PopupAction | null {
  if (key === 'Escape') return panelOpen ? 'back' : canClose ? 'close' : null;
  if (panelOpen) return null;
  switch (key) {
    case 'a':
      return 'allow_once';
    case 'A':
      return 'always';
    case 'd':
      return 'deny';
    case 'm':
      return 'deny_with_message';
    default:
      return null;
  }
}

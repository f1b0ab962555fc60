/**
 * Whether a keydown may act as a page shortcut: not already handled, no Ctrl/⌘/Alt chord (those belong to the
 * browser), and not typed into a field, where the key is the person's text.
 */
export function isShortcut(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return false;
  const target = event.target;
  return !(target instanceof Element && target.closest('input, textarea, select, [contenteditable="true"]'));
}

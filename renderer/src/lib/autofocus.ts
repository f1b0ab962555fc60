import type { Attachment } from 'svelte/attachments';

/**
 * An attachment that moves the focus to its element when the element appears: `{@attach focusOnMount()}` on the
 * field a form opens at, or on the button that replaces the one just pressed. With `select`, a text field's text is
 * selected too, ready to copy.
 */
export function focusOnMount({ select = false }: { select?: boolean } = {}): Attachment<HTMLElement> {
  return (element) => {
    element.focus();
    if (select && (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)) element.select();
  };
}

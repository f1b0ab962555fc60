import type { Analyzer } from '../policy.js';
import { allow, ask } from '../../decision.js';

/** Reading the clipboard can expose a password the person just copied; writing it only hands them text. */
export function desktopAnalyzers(): Record<string, Analyzer> {
  return {
    clipboard: (args) =>
      args.action === 'write'
        ? allow('clipboard:write', 'Writing to the clipboard only hands the person text.')
        : ask('clipboard:read', 'The clipboard may hold a password or other secret the person copied; they decide whether the assistant may read it.'),
    notify: () => allow('notify:show', 'Showing a notification changes nothing on the machine.'),
  };
}

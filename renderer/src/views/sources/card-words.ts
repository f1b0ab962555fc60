// What a source's card says and offers, for every kind: its problem line, the notice beside accepting, and which of
// Accept, Disable, Enable and Remove it has. Pure, so it is tested without a browser.
import type { Source, SourceAction } from '../../state/sources.svelte';
import { waitingTools } from './tool-words';

export interface Problem {
  label: string;
  text: string;
  /** Said loudly while it keeps the source down or held; quietly, with when, once it runs again. */
  loud: boolean;
  tone: 'fail' | 'wait' | 'neutral';
  at: string | null;
}

/** Why it is not running, or its last error; null when there is nothing to say. */
export function problemOf(source: Source): Problem | null {
  const { status, reason } = source.view;
  if (!reason) return null;
  if (status === 'failed') return { label: 'Error:', text: reason, loud: true, tone: 'fail', at: null };
  if (status === 'restarting') return { label: 'Restarting after:', text: reason, loud: true, tone: 'fail', at: null };
  // A plugin's reason explains its status ("none of its code runs until…"); a server's is always its last error.
  if (source.kind === 'plugin') return { label: 'Why:', text: reason, loud: true, tone: status === 'held' ? 'wait' : 'neutral', at: null };
  return { label: 'Last error:', text: reason, loud: false, tone: 'neutral', at: source.server.last_error_at };
}

/**
 * What accepting means for this source, said where the owner accepts; null when nothing waits. A warning (`warn`) is
 * set apart: what accepting cannot contain.
 */
export function acceptNotice(source: Source): { text: string; warn: boolean } | null {
  if (source.kind === 'plugin') {
    const { status, held_because } = source.view;
    if (status !== 'held') return null;
    const first = held_because === 'new' ? 'Accepting runs its code for the first time' : 'Accepting the change runs its code again';
    return { text: `${first}, as it is now — the files below — with these permissions, and turns on the tools its manifest declares.`, warn: false };
  }
  // Whoever accepts a server's tools is told the server runs outside Pincer's sandbox.
  return source.view.tools.some((t) => !t.accepted && t.status !== 'invalid') ? { text: source.server.notice, warn: true } : null;
}

export interface Controls {
  /** The source-wide Accept: its label (and its name for a screen reader, "Accept weather"), whether it is the card's main action, and what it sends. */
  accept: { label: string; named: string; primary: boolean; title: string | null; action: SourceAction } | null;
  /** Disable or Enable, whichever applies, or neither. */
  toggle: 'disable' | 'enable' | null;
  toggleTitle: string | null;
  remove: { confirmLabel: string; title: string } | null;
}

/** Which source-wide actions its card offers. */
export function controlsOf(source: Source): Controls {
  const { status, held_because, accepted_at } = source.view;
  if (source.kind === 'plugin') {
    // Disabling keeps what the owner accepted; one never accepted can only be accepted or removed.
    const canDisable = status === 'running' || status === 'restarting' || (status === 'held' && held_because === 'changed') || (status === 'failed' && accepted_at !== null);
    return {
      accept: status === 'held' ? { label: held_because === 'new' ? 'Accept' : 'Accept change', named: ` ${source.name}`, primary: true, title: null, action: { kind: 'accept' } } : null,
      toggle: canDisable ? 'disable' : status === 'disabled' ? 'enable' : null,
      toggleTitle: null,
      remove:
        source.plugin.origin === 'user' && status !== 'starting'
          ? { confirmLabel: 'Delete its folder', title: "Deletes the plugin's folder and what you accepted of it" }
          : null,
    };
  }
  const waiting = waitingTools(source.view);
  return {
    accept:
      waiting.length > 0
        ? {
            label: `Accept all waiting (${waiting.length})`,
            named: ` of ${source.name}`,
            primary: waiting.some((t) => t.status === 'held'),
            title: `Accepts the ${waiting.length} tools not yet accepted as they are now, rated sensitive (each call asks you); a tool you disabled stays off`,
            action: { kind: 'accept', risk: 'sensitive' },
          }
        : null,
    toggle: status === 'disabled' ? 'enable' : 'disable',
    toggleTitle: status === 'disabled' ? null : 'Stops it and takes its tools away, until you enable it (saved in config.json)',
    remove: {
      confirmLabel: 'Remove it and what you accepted',
      title: 'Stops it, takes its tools away and deletes its entry in config.json with what you accepted of it',
    },
  };
}

import { reasonForClient } from '../approvals/client-view.js';
import { DEFAULT_CLIENT } from '../auth/credentials.js';
import type { CallRecord, HistoryScope, MemoryScope } from '../store/index.js';
import type { Identity } from './identity.js';

/** The tools that read or write memories: their arguments and results hold memory text. */
export const MEMORY_TOOLS: ReadonlySet<string> = new Set(['remember', 'recall', 'forget']);

/** What a client limited to its own memories is told in place of another client's memory call's details. */
export const HIDDEN_MEMORY_CALL = "another client's memory call: its arguments and result are not shown";

/**
 * What one caller may read of the call history (GET /calls, /calls/{id}, the export, /events, /stats).
 * Security: a call's arguments and result hold what a client sent and got back — file contents, commands, memory
 * text — so a named client reads only its own calls unless the owner gives it `all`; one given `all` but limited to
 * its own memories still gets other clients' memory calls without their arguments and results.
 */
export interface CallView {
  /** The only client whose calls this caller may know of; undefined: every client's. */
  calls: string | undefined;
  /** The only client whose memory calls this caller reads whole; undefined: every client's. */
  memories: string | undefined;
}

/** The owner's view, the default client's, and that of a client given every call and every memory. */
export const SEES_EVERYTHING: CallView = Object.freeze({ calls: undefined, memories: undefined });

/** A client's scopes, read on every use (the owner may change them while a stream is open). */
export type ScopesOf = (client: string) => { memories: MemoryScope; history: HistoryScope };

export function callView(identity: Identity, scopesOf: ScopesOf): CallView {
  // The default client reads everything by definition: no lookup (every open stream asks at every batch).
  if (identity.kind === 'owner' || identity.name === DEFAULT_CLIENT) return SEES_EVERYTHING;
  const { memories, history } = scopesOf(identity.name);
  if (memories === 'all' && history === 'all') return SEES_EVERYTHING;
  return { calls: history === 'own' ? identity.name : undefined, memories: memories === 'own' ? identity.name : undefined };
}

/** Whether the viewer may know of a call (or an approval, live output, a notification) made by `client`. */
export function seesCallOf(view: CallView, client: string): boolean {
  return view.calls === undefined || view.calls === client;
}

/**
 * Whether the viewer must not see this call's arguments and result: another client's memory call would show that
 * client's memories.
 */
export function hidesMemoryCall(call: Pick<CallRecord, 'tool' | 'client'>, view: CallView): boolean {
  return view.memories !== undefined && MEMORY_TOOLS.has(call.tool) && call.client !== view.memories;
}

/**
 * The call as the viewer may read it; undefined when it may not know of the call at all, which a route answers as
 * it answers a call that does not exist.
 */
export function shownCall(view: CallView, call: CallRecord): (CallRecord & { hidden?: string }) | undefined {
  if (!seesCallOf(view, call.client)) return undefined;
  if (hidesMemoryCall(call, view)) return { ...call, arguments: null, result: null, hidden: HIDDEN_MEMORY_CALL };
  // Security: a call's reason (and a FILES_CHANGED refusal) names the clients that wrote files it runs; a client that
  // reads only its own calls reads them as "another client", as on its approval card.
  if (view.calls !== undefined && (call.reason?.includes('client "') || call.error?.message.includes('client "'))) {
    const viewer = view.calls;
    return {
      ...call,
      reason: call.reason === null ? null : reasonForClient(call.reason, viewer),
      error: call.error && { ...call.error, message: reasonForClient(call.error.message, viewer) },
    };
  }
  return call;
}

/**
 * A history filter narrowed to the calls the viewer may read; undefined when it asks only for calls it may not
 * (`client=` another client): the answer is then empty, as for a client that never called, so it confirms nothing
 * about who else exists — as the memory store answers `?client=` another client.
 */
export function scopedFilter<F extends { client?: string }>(view: CallView, filter: F): F | undefined {
  if (view.calls === undefined) return filter;
  if (filter.client !== undefined && filter.client !== view.calls) return undefined;
  return { ...filter, client: view.calls };
}

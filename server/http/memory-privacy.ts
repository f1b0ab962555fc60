import type { CallRecord } from '../store/index.js';

/** The tools that read or write memories: their arguments and results hold memory text. */
export const MEMORY_TOOLS: ReadonlySet<string> = new Set(['remember', 'recall', 'forget']);

/** What a client limited to its own memories is told in place of another client's memory call's details. */
export const HIDDEN_MEMORY_CALL = "another client's memory call: its arguments and result are not shown";

/**
 * Security: whether `viewer` (a client limited to its own memories; undefined for anyone who sees every memory) must
 * not see this call's arguments and result — another client's memory call would show that client's memories.
 */
export function hidesMemoryCall(call: Pick<CallRecord, 'tool' | 'client'>, viewer: string | undefined): boolean {
  return viewer !== undefined && MEMORY_TOOLS.has(call.tool) && call.client !== viewer;
}

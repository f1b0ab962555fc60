import { recoverToolCalls } from '../../../../server/llm/recovery/recover.js';
import type { NameResolver, Recovery } from '../../../../server/llm/recovery/types.js';

/** The tools the recovery tests offer. */
export const OFFERED = ['get_time', 'calculate', 'search_files', 'write_file'];

/** A plain resolver: the exact name, or the name behind a `functions.` prefix. */
export function resolverFor(names: readonly string[] = OFFERED): NameResolver {
  const offered = new Set(names);
  return (n) => (offered.has(n) ? n : offered.has(n.replace(/^functions\./, '')) ? n.replace(/^functions\./, '') : undefined);
}

/** Recovers with the offered tools. */
export function recover(text: string, names: readonly string[] = OFFERED): Recovery {
  return recoverToolCalls(text, resolverFor(names));
}

/** The calls as [name, arguments] pairs, for short expectations. */
export function callsOf(recovery: Recovery): [string, unknown][] {
  return recovery.calls.map((c) => [c.name, c.arguments]);
}

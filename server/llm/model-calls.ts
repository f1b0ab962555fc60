import { randomUUID } from 'node:crypto';
import type { CallRecovery } from '../store/index.js';
import { closestNames } from './recovery/names.js';
import { recoverToolCalls } from './recovery/recover.js';
import { repairArguments } from './recovery/repair.js';
import type { NameResolver } from './recovery/types.js';
import type { ToolCall, ToolSpec } from './types.js';

/** A call of the model's, ready for the pipeline: a unique id, the offered name it means, its arguments mended. */
export interface ModelCall {
  call: ToolCall;
  /** Set when the arguments could not be mended: the executor refuses the call with it, for the model to correct. */
  argumentsError?: string;
  /** What was done to the call on the way in, recorded with it; absent for a clean native call. */
  recovery?: CallRecovery;
  /** The name matched an offered tool. */
  offered: boolean;
}

/** A fresh call id: upstreams that send none (Ollama's native API) or number them by position cannot collide. */
export function newToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/** The offered tools by name, and how a written name maps to one of them. */
export interface Offer {
  resolve: NameResolver;
  schemaOf(name: string): unknown;
  names: readonly string[];
}

export function offerOf(tools: readonly ToolSpec[], resolver: (names: readonly string[]) => NameResolver): Offer {
  const byName = new Map(tools.map((tool) => [tool.function.name, tool.function.parameters]));
  const names = [...byName.keys()];
  return { resolve: resolver(names), schemaOf: (name) => byName.get(name), names };
}

/**
 * The calls of one answer: native ones as sent, else those written in the answer's text (only names that were
 * offered; see recovery/). Names are normalised only to the one offered tool they match; ids are made unique in
 * the conversation; arguments are repaired against the tool's schema. Returns the answer's prose without markup.
 */
export function modelCalls(
  native: readonly ToolCall[],
  text: string,
  offer: Offer,
  usedIds: Set<string>,
  maxJsonDepth: number,
): { calls: ModelCall[]; text: string } {
  if (native.length > 0) return { calls: native.map((call) => prepare(call, undefined, offer, usedIds, maxJsonDepth)), text };
  const recovery = recoverToolCalls(text, offer.resolve);
  if (recovery.calls.length === 0) return { calls: [], text };
  const calls = recovery.calls.map((found) =>
    prepare({ id: '', name: found.writtenName ?? found.name, arguments: found.arguments }, found.shape, offer, usedIds, maxJsonDepth),
  );
  return { calls, text: recovery.text };
}

function prepare(call: ToolCall, shape: string | undefined, offer: Offer, usedIds: Set<string>, maxJsonDepth: number): ModelCall {
  const resolved = offer.resolve(call.name);
  const name = resolved ?? call.name;
  const repaired = repairArguments(call.arguments, resolved === undefined ? undefined : offer.schemaOf(resolved), maxJsonDepth);
  const id = call.id && !usedIds.has(call.id) ? call.id : newToolCallId();
  usedIds.add(id);
  const recovery: CallRecovery = {
    ...(shape !== undefined && { shape }),
    ...(repaired.repairs.length > 0 && { repairs: repaired.repairs }),
    ...(resolved !== undefined && resolved !== call.name && { written_name: call.name }),
  };
  return {
    call: { id, name, arguments: repaired.error === undefined ? repaired.value : call.arguments },
    ...(repaired.error !== undefined && { argumentsError: repaired.error }),
    ...(Object.keys(recovery).length > 0 && { recovery }),
    offered: resolved !== undefined,
  };
}

/** What the model reads when it called a tool that was not offered: the offered names closest to it. */
export function unknownToolHint(name: string, offer: Offer): string {
  const closest = closestNames(name, offer.names, 3);
  return closest.length > 0 ? `Offered tools closest to "${name}": ${closest.join(', ')}.` : `No tool named "${name}" is offered.`;
}

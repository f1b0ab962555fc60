import type { ChatWindowReport, ToolOffer, ToolOfferReason } from '../../lib/types';
import type { ChatStep } from '../../state/chat-turn';

/** Names listed in a note before the rest is counted. */
const NAMES_SHOWN = 6;

/**
 * What Pincer did to a step's call on its way in: a marker for the card's summary (`recovered from text · hermes` for
 * a call written in the answer's text, `mended` for a native call whose name or arguments were mended), and the
 * details in words. Nothing for a clean native call.
 */
export function describeRecovery(step: Pick<ChatStep, 'recovered' | 'recovery'>): { marker: string; notes: string[] } | undefined {
  const { recovery } = step;
  const notes: string[] = [];
  if (recovery?.written_name) notes.push(`name written as “${recovery.written_name}”`);
  if (recovery?.repairs?.length) notes.push(`arguments repaired: ${recovery.repairs.join(', ')}`);
  if (step.recovered || recovery?.shape) {
    return { marker: recovery?.shape ? `recovered from text · ${recovery.shape}` : 'recovered from text', notes };
  }
  return notes.length > 0 ? { marker: 'mended', notes } : undefined;
}

/** The note under an answer when tools were left out to fit the model's window; nothing when none was. */
export function leftOutNote(context: ChatWindowReport | undefined): string | undefined {
  const left = context?.tools_left_out ?? [];
  if (!context || left.length === 0) return undefined;
  const window = context.num_ctx === undefined ? `limit ${context.limit}` : `num_ctx ${context.num_ctx} of limit ${context.limit}`;
  const names = left.slice(0, NAMES_SHOWN).join(', ');
  const more = left.length > NAMES_SHOWN ? `… (+${left.length - NAMES_SHOWN} more)` : '';
  return `${left.length} ${left.length === 1 ? 'tool' : 'tools'} left out to fit the model's window (${window}): ${names}${more}`;
}

/** What the prompted-mode badge explains when the server gave no reason of its own. */
export const PROMPTED_EXPLAINED =
  "This model has no native tool support, so Pincer describes its tools in the system prompt and reads the calls from the model's text.";

const OFFER_REASONS: Record<ToolOfferReason, { words: string; hint: string }> = {
  relevant: { words: 'relevant to your message', hint: 'Among the best matches for what you asked' },
  used: { words: 'used earlier', hint: 'The model called it earlier in this conversation' },
  found: { words: 'found by search_tools', hint: 'The model looked for it with search_tools' },
  yours: { words: 'yours', hint: 'One of the tools the request itself brought' },
  search: { words: 'search', hint: 'search_tools, offered every turn so the model can find the tools left out' },
  all: { words: 'every tool fits', hint: 'Every tool was offered' },
};

/** Why a tool was offered this turn, in words, with a longer hint. */
export function offerReason(why: ToolOfferReason): { words: string; hint: string } {
  return OFFER_REASONS[why] ?? { words: why, hint: why };
}

/** The folded line under an answer: "Offered 9 tools this turn"; nothing when every tool was offered. */
export function offeredTitle(offered: readonly ToolOffer[] | undefined): string | undefined {
  if (!offered) return undefined;
  return `Offered ${offered.length} ${offered.length === 1 ? 'tool' : 'tools'} this turn`;
}

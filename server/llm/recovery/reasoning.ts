/**
 * Reasoning blocks (`<think>…</think>` from Qwen3, DeepSeek-R1 distills and others; `<thinking>…</thinking>`) that
 * a model writes into its answer text. They are not part of the answer: they go to their own channel, and the
 * recovery parsers never see them (a model often drafts a call inside its reasoning before making it).
 */

/** The answer text with the reasoning taken out, and the reasoning. */
export interface ReasoningSplit {
  text: string;
  reasoning: string;
}

const OPENER = /<think(?:ing)?>/;
/** Either closer ends either block: a model that opens `<think>` and closes `</thinking>` still meant one block. */
const CLOSER = /<\/think(?:ing)?>/;
const OPENERS = ['<think>', '<thinking>'];
const CLOSERS = ['</think>', '</thinking>'];

/**
 * Removes every reasoning block from a complete text. An unclosed block runs to the end; a closer with no opener
 * before it means everything before it was reasoning (some chat templates open the block in the prompt, so the
 * model's text starts inside it). The text after a removed block is trimmed at its start.
 */
export function splitReasoning(text: string): ReasoningSplit {
  const blocks: string[] = [];
  let rest = text;
  const orphan = CLOSER.exec(rest);
  const first = OPENER.exec(rest);
  if (orphan !== null && (first === null || orphan.index < first.index)) {
    blocks.push(rest.slice(0, orphan.index));
    rest = rest.slice(orphan.index + orphan[0].length).trimStart();
  }
  let out = '';
  for (let open = OPENER.exec(rest); open !== null; open = OPENER.exec(rest)) {
    out += rest.slice(0, open.index);
    const body = rest.slice(open.index + open[0].length);
    const close = CLOSER.exec(body);
    if (close === null) {
      blocks.push(body);
      rest = '';
      break;
    }
    blocks.push(body.slice(0, close.index));
    rest = body.slice(close.index + close[0].length).trimStart();
  }
  out += rest;
  const reasoning = blocks.map((b) => b.trim()).filter((b) => b !== '');
  return { text: out, reasoning: reasoning.join('\n\n') };
}

/**
 * Splits a streamed answer into text and reasoning as chunks arrive, whatever the chunk boundaries: a tail that may
 * be the start of a tag (`<thi`, `</thin`) is held until the next chunk decides. The text matches splitReasoning's;
 * the reasoning is streamed as written (leading whitespace of a block dropped, blocks separated by a blank line).
 *
 * A closer with no opener before it cannot be handled here: the text before it was already released as text. The
 * closer passes through as text too, so splitReasoning over the streamed text (or the raw answer) yields the right
 * final answer; the caller fixes the final answer that way.
 */
export class ReasoningSplitter {
  #inside = false;
  /** A tail that may be the start of the next tag. */
  #pending = '';
  /** Drop leading whitespace of the text after a block (as splitReasoning does). */
  #trimText = false;
  /** Drop leading whitespace at the start of a block. */
  #trimReasoning = false;
  #anyReasoning = false;

  push(chunk: string): ReasoningSplit {
    const out: ReasoningSplit = { text: '', reasoning: '' };
    let s = this.#pending + chunk;
    this.#pending = '';
    while (s !== '') {
      const tag = (this.#inside ? CLOSER : OPENER).exec(s);
      if (tag === null) {
        const keep = tagPrefixLength(s, this.#inside ? CLOSERS : OPENERS);
        this.#pending = s.slice(s.length - keep);
        this.#emit(out, s.slice(0, s.length - keep));
        break;
      }
      this.#emit(out, s.slice(0, tag.index));
      s = s.slice(tag.index + tag[0].length);
      this.#inside = !this.#inside;
      if (this.#inside) this.#trimReasoning = true;
      else this.#trimText = true;
    }
    return out;
  }

  /** The stream ended: a held tail is released (as reasoning inside an unclosed block). */
  end(): ReasoningSplit {
    const out: ReasoningSplit = { text: '', reasoning: '' };
    this.#emit(out, this.#pending);
    this.#inside = false;
    this.#pending = '';
    this.#trimText = false;
    this.#trimReasoning = false;
    this.#anyReasoning = false;
    return out;
  }

  #emit(out: ReasoningSplit, part: string): void {
    if (this.#inside) {
      const r = this.#trimReasoning ? part.trimStart() : part;
      if (r === '') return;
      // The first text of a block after an earlier one: separate them as splitReasoning does.
      if (this.#trimReasoning && this.#anyReasoning) out.reasoning += '\n\n';
      this.#trimReasoning = false;
      this.#anyReasoning = true;
      out.reasoning += r;
    } else {
      const t = this.#trimText ? part.trimStart() : part;
      if (t === '') return;
      this.#trimText = false;
      out.text += t;
    }
  }
}

/** Length of the tail of `s` that is a proper prefix of one of `tags` (0 if none). */
function tagPrefixLength(s: string, tags: string[]): number {
  const lt = s.lastIndexOf('<');
  if (lt < 0) return 0;
  const tail = s.slice(lt);
  return tags.some((t) => t.length > tail.length && t.startsWith(tail)) ? tail.length : 0;
}

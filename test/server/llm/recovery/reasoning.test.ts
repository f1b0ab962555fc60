import { describe, expect, it } from 'vitest';
import { ReasoningSplitter, splitReasoning } from '../../../../server/llm/recovery/reasoning.js';
/** Every way a test feeds a text: whole, cut in two at every position, and in chunks of 1, 2, 3 and 7. */
function feedings(text: string): { label: string; chunks: string[] }[] {
  const out = [{ label: 'whole', chunks: [text] }];
  for (let i = 1; i < text.length; i++) out.push({ label: `split at ${i}`, chunks: [text.slice(0, i), text.slice(i)] });
  for (const n of [1, 2, 3, 7]) {
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += n) chunks.push(text.slice(i, i + n));
    out.push({ label: `chunks of ${n}`, chunks });
  }
  return out;
}

function stream(chunks: string[]): { text: string; reasoning: string } {
  const splitter = new ReasoningSplitter();
  let text = '';
  let reasoning = '';
  for (const part of [...chunks.map((c) => splitter.push(c)), splitter.end()]) {
    text += part.text;
    reasoning += part.reasoning;
  }
  return { text, reasoning };
}

const CASES: { name: string; input: string; text: string; reasoning: string }[] = [
  {
    name: 'qwen3',
    input: '<think>\nThe user wants 2+2.\n</think>\n\nThe answer is 4.',
    text: 'The answer is 4.',
    reasoning: 'The user wants 2+2.',
  },
  { name: 'thinking tag', input: '<thinking>plan it</thinking>Done.', text: 'Done.', reasoning: 'plan it' },
  { name: 'prose before', input: 'Sure. <think>hmm</think>  Here it is.', text: 'Sure. Here it is.', reasoning: 'hmm' },
  { name: 'unclosed', input: 'Hi <think>still a < b', text: 'Hi ', reasoning: 'still a < b' },
  { name: 'empty block', input: '<think>\n\n</think>\n\nAnswer.', text: 'Answer.', reasoning: '' },
  { name: 'mixed closer', input: '<think>a</thinking> b', text: 'b', reasoning: 'a' },
  {
    name: 'two blocks',
    input: '<think>one</think>\nA <think> two </think> B',
    text: 'A B',
    reasoning: 'one\n\ntwo',
  },
  { name: 'no block', input: 'a < b, <thin ice>, </thin>, <th', text: 'a < b, <thin ice>, </thin>, <th', reasoning: '' },
  {
    name: 'a call after reasoning',
    input: '<think>I should call get_time.</think>\n<tool_call>{"name": "get_time"}</tool_call>',
    text: '<tool_call>{"name": "get_time"}</tool_call>',
    reasoning: 'I should call get_time.',
  },
];

describe('splitReasoning', () => {
  for (const c of CASES) {
    it(c.name, () => {
      expect(splitReasoning(c.input)).toEqual({ text: c.text, reasoning: c.reasoning });
    });
  }

  it('takes everything before an orphan closer as reasoning (the template opened the block)', () => {
    expect(splitReasoning('The user asks X.\n</think>\n\nAnswer: Y.')).toEqual({
      text: 'Answer: Y.',
      reasoning: 'The user asks X.',
    });
    expect(splitReasoning('r1</think>A<think>r2</think> B')).toEqual({ text: 'AB', reasoning: 'r1\n\nr2' });
  });
});

describe('ReasoningSplitter', () => {
  for (const c of CASES) {
    it(`${c.name}, at every split`, () => {
      for (const { label, chunks } of feedings(c.input)) {
        const out = stream(chunks);
        expect(out.text, label).toBe(c.text);
        expect(out.reasoning.trim(), label).toBe(c.reasoning);
      }
    });
  }

  it('holds a possible tag until the next chunk decides', () => {
    const splitter = new ReasoningSplitter();
    expect(splitter.push('Hello <thi')).toEqual({ text: 'Hello ', reasoning: '' });
    expect(splitter.push('nk>x </thi')).toEqual({ text: '', reasoning: 'x ' });
    expect(splitter.push('nk> world')).toEqual({ text: 'world', reasoning: '' });
    expect(splitter.push(' <b>')).toEqual({ text: ' <b>', reasoning: '' });
    expect(splitter.end()).toEqual({ text: '', reasoning: '' });
  });

  it('releases a held tail at the end', () => {
    const splitter = new ReasoningSplitter();
    expect(splitter.push('a <think')).toEqual({ text: 'a ', reasoning: '' });
    expect(splitter.end()).toEqual({ text: '<think', reasoning: '' });
  });

  it('passes an orphan closer through as text, so splitReasoning can fix the final answer', () => {
    const input = 'plan</think>\n\nAnswer.';
    for (const { label, chunks } of feedings(input)) {
      const out = stream(chunks);
      expect(out.text, label).toBe(input);
      expect(splitReasoning(out.text), label).toEqual({ text: 'Answer.', reasoning: 'plan' });
    }
  });
});

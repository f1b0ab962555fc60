import { describe, expect, it } from 'vitest';
import { StreamGate } from '../../../../server/llm/recovery/stream-gate.js';

/** `text` cut into chunks of `n` characters (the last may be shorter). */
export function splitEvery(text: string, n: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += n) chunks.push(text.slice(i, i + n));
  return chunks;
}

/** Every way a test feeds a text: whole, cut in two at every position, and in chunks of 1, 2, 3 and 7. */
function feedings(text: string): { label: string; chunks: string[] }[] {
  const out = [{ label: 'whole', chunks: [text] }];
  for (let i = 1; i < text.length; i++) out.push({ label: `split at ${i}`, chunks: [text.slice(0, i), text.slice(i)] });
  for (const n of [1, 2, 3, 7]) out.push({ label: `chunks of ${n}`, chunks: splitEvery(text, n) });
  return out;
}

const isCall = (block: string): boolean => /"name"\s*:\s*"get_time"|get_time\(/.test(block);

function run(chunks: string[], check = isCall): { released: string; held: string; pushed: string[] } {
  const gate = new StreamGate(check);
  const pushed = chunks.map((c) => gate.push(c));
  return { released: pushed.join(''), held: gate.end(), pushed };
}

const STRONG_OPENERS = [
  '<tool_call>',
  '<tool_calls>',
  '<function=',
  '<|python_tag|>',
  '<|tool_call_start|>',
  '[TOOL_CALLS]',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  '<|tool_calls_begin|>',
  '<|tool_call_begin|>',
  '```tool_code',
  '```tool_call',
];

/** Whether `tail` may still become an opener: the only text push() may keep from plain prose. */
const strictPrefix = (tail: string): boolean =>
  tail === '' || [...STRONG_OPENERS, '```'].some((o) => o.length > tail.length && o.startsWith(tail));

/** Each family's markup, as small models write it. */
const CALLS: Record<string, string> = {
  hermes: '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>',
  'hermes plural': '<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>',
  'qwen3-coder':
    '<tool_call>\n<function=get_time>\n<parameter=timezone>\nUTC\n</parameter>\n</function>\n</tool_call>',
  glm: '<tool_call>get_time\n<arg_key>timezone</arg_key>\n<arg_value>UTC</arg_value>\n</tool_call>',
  'llama function tag': '<function=get_time>{"timezone": "UTC"}</function>',
  'llama python tag': '<|python_tag|>{"name": "get_time", "parameters": {"timezone": "UTC"}}',
  'llama python tag, pythonic': '<|python_tag|>get_time(timezone="UTC")',
  lfm2: '<|tool_call_start|>[get_time(timezone="UTC")]<|tool_call_end|>',
  mistral: '[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "UTC"}}]',
  'mistral new': '[TOOL_CALLS]get_time[ARGS]{"timezone": "UTC"}',
  deepseek:
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"timezone": "UTC"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  'deepseek single': '<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜>',
  'deepseek ascii':
    '<|tool_calls_begin|><|tool_call_begin|>function<|tool_sep|>get_time\n{"timezone": "UTC"}<|tool_call_end|><|tool_calls_end|>',
  'deepseek ascii single': '<|tool_call_begin|>get_time<|tool_sep|>{"timezone": "UTC"}<|tool_call_end|>',
  'gemma tool_code': '```tool_code\nget_time(timezone="UTC")\n```',
  'tool_call fence': '```tool_call\n{"name": "get_time", "arguments": {}}\n```',
  'json fence': '```json\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```',
  'bare fence': '```\n{"name": "get_time", "arguments": {}}\n```',
  'four-backtick tool_code fence': '````tool_code\nget_time(timezone="UTC")\n````',
  'llama json':
    '{"name": "get_time", "parameters": {"timezone": "UTC", "note": "a } in a string, it\'s \\" fine"}}',
  'openai text':
    '{"tool_calls": [{"function": {"name": "get_time", "arguments": "{\\"timezone\\": \\"UTC\\"}"}}]}',
  pythonic: '[get_time(timezone="UTC")]',
  'pythonic, single quotes': "[get_time(timezone='Europe/Paris', note=\"don't ] stop\"), other(a=[1, 2])]",
  'pythonic, spaced': '[\n  get_time(timezone="UTC")\n]',
  'json list': '[{"name": "get_time", "arguments": {}}]',
};

/** Markup that only opens a call where a line starts (a bracket or a fence); the others open one anywhere. */
const LINE_START = new Set([
  'json fence',
  'bare fence',
  'four-backtick tool_code fence',
  'llama json',
  'openai text',
  'pythonic',
  'pythonic, single quotes',
  'pythonic, spaced',
  'json list',
]);

describe('StreamGate: calls', () => {
  for (const [family, markup] of Object.entries(CALLS)) {
    const proses = ['', 'Let me check (a < b, [see](x), `code`).\n', '  Indented prose line.\n\n  '];
    if (!LINE_START.has(family)) proses.push('Sure thing: ', 'Sure.');
    for (const prose of proses) {
      for (const after of ['', '\nThe time is noon.']) {
        const text = prose + markup + after;
        it(`${family}, prose ${JSON.stringify(prose)}, after ${JSON.stringify(after)}`, () => {
          for (const { label, chunks } of feedings(text)) {
            const { released, held } = run(chunks);
            expect(released + held, label).toBe(text);
            // Exactly the prose is released: no part of the markup, and all the prose before the end.
            expect(released, label).toBe(prose);
          }
        });
      }
    }
  }

  it('releases the prose before a call as soon as the markup starts', () => {
    const gate = new StreamGate(isCall);
    expect(gate.push('Checking now. <')).toBe('Checking now. ');
    expect(gate.push('tool_call>{"name": "get_time"')).toBe('');
    expect(gate.push('}</tool_call> and then some')).toBe('');
    expect(gate.end()).toBe('<tool_call>{"name": "get_time"}</tool_call> and then some');
  });

  it('passes the complete block to isCall', () => {
    const blocks: string[] = [];
    const gate = new StreamGate((b) => (blocks.push(b), false));
    for (const c of splitEvery('Intro\n{"a": [1, "]"]} tail\n```json\n{"b": 2}\n```\nend', 3)) gate.push(c);
    gate.end();
    expect(blocks).toEqual(['{"a": [1, "]"]}', '```json\n{"b": 2}\n```']);
  });
});

describe('StreamGate: prose', () => {
  const PROSE: Record<string, string> = {
    plain: 'The answer is 42. Nothing to hide here.\nSecond line.',
    'less than': 'If a < b and b <= c then a < c; <b>bold</b> and <br/> too.',
    'markdown link': '[link](https://example.com) at a line start, and [another](x) mid-line.',
    'mid-line braces': 'Use a dict like {"a": 1} or a set {1, 2}, and [1, 2] as a list.',
    'bracket lists': '[1, 2, 3] is a list\n[ ] an empty box\n[x] a checked box\n["a", "b"] strings.',
    'task list': '- [ ] todo\n- [x] done.',
    'inline code': 'Run `ls -la` or ``two ticks`` then.',
    'python fence':
      'Here:\n```python\nprint([1, 2])\n{"name": "get_time"}\n[get_time(x)]\nx = {\n```\nAnd more prose after the code.',
    'bash fence, indented': 'Steps:\n  ```bash\n  echo {a,b}\n  ```\nDone.',
    'four-backtick fence': '````markdown\n```json\n{"a": 1}\n```\n````\nDone.',
    'rejected json fence': 'The format is:\n```json\n{"city": "Paris", "temp": 21}\n```\nThat is all.',
    'rejected bare fence': 'Output:\n```\n{"ok": true}\n```\nDone.',
    'rejected bare json': 'Example:\n{"city": "Paris", "list": [1, "}", \'x\']}\nThat is an example.',
    'rejected json list': 'Data:\n[{"id": 1}, {"id": 2}]\nDone.',
    'rejected pythonic-looking': "Call:\n[print('hi'), len(x)]\nDone.",
    'apostrophes in braces': "Note:\n{it's a brace, don't worry}\nDone.",
    'think-ish tags': 'Use <tool> or <function> or <|im_end|> or [TOOL] or [INST] words.',
    'fullwidth bar': 'A ｜ bar and <｜ a lone one｜>.',
  };
  for (const [name, text] of Object.entries(PROSE)) {
    it(`releases ${name} by push()`, () => {
      for (const { label, chunks } of feedings(text)) {
        const { released, held } = run(chunks);
        expect(released + held, label).toBe(text);
        expect(held, label).toBe('');
      }
    });
  }

  it('holds only a tail that may still become an opener', () => {
    for (const text of ['a <', 'see [TOOL', 'x <tool_', 'a `', 'b ``', 'c <｜', 'd <|python']) {
      for (const { label, chunks } of feedings(text)) {
        const { released, held } = run(chunks);
        expect(released + held, label).toBe(text);
        expect(strictPrefix(held), `${label}: ${JSON.stringify(held)}`).toBe(true);
        expect(held).not.toBe('');
      }
    }
  });

  it('passes a chunk without trigger characters straight through', () => {
    let calls = 0;
    const gate = new StreamGate(() => (calls++, true));
    for (const chunk of ['Hello', ', world', '.\n', '  indented', ' 100% plain: no markup']) {
      expect(gate.push(chunk)).toBe(chunk);
    }
    expect(gate.end()).toBe('');
    expect(calls).toBe(0);
  });

  it('releases a < b and a link at once', () => {
    const gate = new StreamGate(isCall);
    expect(gate.push('a < b')).toBe('a < b');
    expect(gate.push('\n[Click here')).toBe('\n[Click here');
    expect(gate.push('](x)')).toBe('](x)');
    expect(gate.push('\n[1')).toBe('\n[1');
    expect(gate.push('\n```py')).toBe('\n```py');
    expect(gate.end()).toBe('');
  });

  it('releases a code fence in another language at once, and its closing fence opens nothing', () => {
    const gate = new StreamGate(isCall);
    expect(gate.push('```python\nx = 1\n')).toBe('```python\nx = 1\n');
    expect(gate.push('```\n')).toBe('```\n');
    expect(gate.push('After.')).toBe('After.');
    expect(gate.end()).toBe('');
  });

  it('releases a bracket that grows past 64 KiB without balancing', () => {
    const text = `{ ${'word '.repeat(14_000)}`;
    const { released, held, pushed } = run(splitEvery(text, 50));
    expect(released + held).toBe(text);
    expect(released.length).toBeGreaterThan(64 * 1024);
    expect(pushed.findIndex((p) => p !== '')).toBeGreaterThan(0);
  });

  it('releases an unclosed json fence past 64 KiB', () => {
    const text = `\`\`\`json\n${'{"a": 1}\n'.repeat(8_000)}`;
    const { released, held } = run(splitEvery(text, 64));
    expect(released + held).toBe(text);
    expect(released.length).toBeGreaterThan(64 * 1024);
  });

  // Quadratic work would run into the test timeout here; the cost per chunk is npm run bench's to judge.
  it('passes plain streaming through whole', () => {
    const gate = new StreamGate(isCall);
    let released = '';
    for (let i = 0; i < 200_000; i++) released += gate.push('some plain words, ');
    expect(released.length + gate.end().length).toBe(200_000 * 'some plain words, '.length);
  });

  it('holds a long call streamed one character at a time', () => {
    const text = `{"name": "get_time", "arguments": {"content": "${'x'.repeat(60_000)}"}}`;
    const { released, held } = run(splitEvery(text, 1));
    expect(released).toBe('');
    expect(held).toBe(text);
  });
});

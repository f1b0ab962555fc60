import { describe, expect, it } from 'vitest';
import { StreamGate, STRONG_OPENERS } from '../../../../server/llm/recovery/stream-gate.js';
import { recover, resolverFor } from './recover-helpers.js';
import { recoverToolCalls } from '../../../../server/llm/recovery/recover.js';

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

const isCall = (block: string): boolean => /(["'])name\1\s*:\s*(["'])get_time\2|get_time\(/.test(block);

function run(chunks: string[], check = isCall): { released: string; held: string; pushed: string[] } {
  const gate = new StreamGate(check);
  const pushed = chunks.map((c) => gate.push(c));
  return { released: pushed.join(''), held: gate.end(), pushed };
}


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
  'mistral without [ARGS]': '[TOOL_CALLS]get_time{"timezone": "UTC"}',
  'tool call token': '<|tool_call|>[{"name": "get_time", "arguments": {"timezone": "UTC"}}]<|/tool_call|>',
  'tool call token, unclosed': '<|tool_call|>[{"name": "get_time", "arguments": {}}]',
  'hermes list': '<tool_call>\n[{"name": "get_time", "arguments": {}}, {"name": "calculate", "arguments": {}}]\n</tool_call>',
  deepseek:
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"timezone": "UTC"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  'deepseek single': '<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜>',
  'deepseek ascii':
    '<|tool_calls_begin|><|tool_call_begin|>function<|tool_sep|>get_time\n{"timezone": "UTC"}<|tool_call_end|><|tool_calls_end|>',
  'deepseek ascii single': '<|tool_call_begin|>get_time<|tool_sep|>{"timezone": "UTC"}<|tool_call_end|>',
  'gemma tool_code': '```tool_code\nget_time(timezone="UTC")\n```',
  'tool_call fence': '```tool_call\n{"name": "get_time", "arguments": {}}\n```',
  'tool_calls fence': '```tool_calls\n[{"name": "get_time", "arguments": {}}]\n```',
  'jsonc fence': '```jsonc\n{"name": "get_time", "arguments": {}}\n```',
  'json fence': '```json\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```',
  'bare fence': '```\n{"name": "get_time", "arguments": {}}\n```',
  'four-backtick tool_code fence': '````tool_code\nget_time(timezone="UTC")\n````',
  'llama json':
    '{"name": "get_time", "parameters": {"timezone": "UTC", "note": "a } in a string, it\'s \\" fine"}}',
  'openai text':
    '{"tool_calls": [{"function": {"name": "get_time", "arguments": "{\\"timezone\\": \\"UTC\\"}"}}]}',
  'openai text, flat': '{"tool_calls": [{"name": "get_time", "arguments": {"timezone": "UTC"}}]}',
  'llama json, single quotes': "{'name': 'get_time', 'parameters': {'timezone': 'UTC'}}",
  'llama json, spaced': '{\n  "name": "get_time",\n  "parameters": {}\n}',
  pythonic: '[get_time(timezone="UTC")]',
  'pythonic, single quotes': "[get_time(timezone='Europe/Paris', note=\"don't ] stop\"), other(a=[1, 2])]",
  'pythonic, spaced': '[\n  get_time(timezone="UTC")\n]',
  'json list': '[{"name": "get_time", "arguments": {}}]',
};

/** Markup that only opens a call where a line starts (a fence); the others open one anywhere. */
const LINE_START = new Set(['json fence', 'bare fence', 'jsonc fence', 'four-backtick tool_code fence']);

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

/** A call after prose on the same line, or as the whole reply without brackets: [text, the prose released]. */
const INLINE_CALLS: [string, string][] = [
  ['Sure! {"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}', 'Sure! '],
  ['Let me check: {"name": "get_time", "arguments": {}} and then I\'ll answer.', 'Let me check: '],
  ["Okay, {\n 'name': 'get_time', 'parameters': {}} now", 'Okay, '],
  ['On it: [{"name": "get_time", "arguments": {}}]', 'On it: '],
  ['Let me look that up. [get_time(timezone="UTC")]', 'Let me look that up. '],
  ['Both: [ get_time(timezone="UTC"), calculate(expression="1")]\nDone.', 'Both: '],
  ['get_time(timezone="Asia/Tokyo")', ''],
  ['\n  get_time(timezone="UTC");\nfunctions.get_time(timezone="UTC");\n', '\n  '],
];

describe('StreamGate: calls after prose and bare calls', () => {
  for (const [text, prose] of INLINE_CALLS) {
    it(`holds ${JSON.stringify(text)} after ${JSON.stringify(prose)}`, () => {
      for (const { label, chunks } of feedings(text)) {
        const { released, held } = run(chunks);
        expect(released + held, label).toBe(text);
        expect(released, label).toBe(prose);
      }
    });
  }

  it('holds an answer opening with name( to its end, even when it turns out not to be a call', () => {
    for (const text of ['f(x) = 2x.', 'get_time(timezone="UTC") is how you call it.']) {
      for (const { label, chunks } of feedings(text)) {
        const { released, held } = run(chunks, () => false);
        expect(released, label).toBe('');
        expect(held, label).toBe(text);
      }
    }
  });
});

/**
 * With the real recovery behind isCall, as the tool loop runs the gate: whatever recovery takes from the whole reply,
 * it takes the same from what the gate held, and none of it was released while streaming.
 */
describe('StreamGate with recoverToolCalls', () => {
  const resolve = resolverFor();
  const realIsCall = (block: string): boolean => recoverToolCalls(block, resolve).calls.length > 0;
  const POSITIVE = [
    'Sure! {"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}',
    'Let me check: {"name": "calculate", "arguments": {"expression": "2+2"}} and then I\'ll answer.',
    'get_time(timezone="Asia/Tokyo")',
    'get_time(timezone="UTC")\ncalculate(expression="1");',
    'Let me look that up. [get_time(timezone="UTC")]',
    '[TOOL_CALLS]get_time{"timezone": "UTC"}',
    '{"tool_calls": [{"name": "get_time", "arguments": {"timezone": "UTC"}}]}',
    'Calling: {"tool_calls": [{"name": "get_time", "arguments": {}}]}',
    '<tool_call>\n[{"name": "get_time", "arguments": {}}, {"name": "calculate", "arguments": {"expression": "1"}}]\n</tool_call>',
    '<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜>',
    'Sure. <|tool_call_begin|>get_time<|tool_sep|>{"timezone": "UTC"}<|tool_call_end|>',
    'Calling.\n```tool_call\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```',
    '```tool_calls\n[{"name": "get_time", "arguments": {}}]\n```\nDone.',
    '<|tool_call|>[{"name": "get_time", "arguments": {"timezone": "UTC"}}]<|/tool_call|>',
    'Checking. <|tool_call|>[{"name": "get_time", "arguments": {}}]',
    'On it: [{"name": "get_time", "arguments": {}}]',
  ];
  const NEGATIVE = [
    'You can call get_time(timezone="UTC") yourself.',
    'The answer is f(x) = 2x.',
    'Use {braces} for sets, like {1, 2}.',
    'Here is an example tool definition: {"name": "get_time", "description": "Returns the time.", "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}}}',
    '{"name": "Alice", "arguments": {"age": 3}}',
    'Example:\n```python\nprint(get_time("UTC"))\n```',
    '```python\nprint(json.dumps({"name": "get_time", "arguments": {}}))\n```',
    '[see here](http://x)',
    "I'd call [get_time] later.",
    'You could write [get_time(timezone="UTC")] to check.',
  ];

  for (const text of POSITIVE) {
    it(`recovers ${JSON.stringify(text)} from what was held`, () => {
      const whole = recover(text);
      expect(whole.calls.length).toBeGreaterThan(0);
      for (const { label, chunks } of feedings(text)) {
        const { released, held } = run(chunks, realIsCall);
        expect(released + held, label).toBe(text);
        const fromHeld = recover(held);
        expect(fromHeld.calls, label).toEqual(whole.calls);
        // Only prose was released: the prose before the markup, which the whole reply's prose starts with.
        expect(whole.text.startsWith(released.trim()), `${label}: released ${JSON.stringify(released)}`).toBe(true);
      }
    });
  }

  for (const text of NEGATIVE) {
    it(`shows ${JSON.stringify(text)} as it is`, () => {
      expect(recover(text).calls).toEqual([]);
      for (const { label, chunks } of feedings(text)) {
        const { released, held } = run(chunks, realIsCall);
        expect(released + held, label).toBe(text);
        expect(recover(held).calls, label).toEqual([]);
      }
    });
  }
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
    'sets and braces': 'Use {braces} for sets, like {1, 2}, or { "spaced" } and {}.\n{a} b {c.',
    'links and boxes mid-line': "See [see here](http://x) and I'd call [get_time] later, [1, 2] or [ x ] or [{1}].",
    'call syntax in prose': 'You can call get_time(timezone="UTC") yourself.',
    'math': 'The answer is f(x) = 2x.',
    'a first word, then prose': 'Sure, I can do that.',
    'a first dotted word': 'e.g. this one.',
    'python fence, call JSON mid-line':
      'Like this:\n```python\nprint(json.dumps({"name": "get_time", "arguments": {}}))\nx = [get_time(timezone="UTC")]\n```\nDone.',
    'pythonic list mid-line in a code fence': 'Like:\n```bash\necho [get_time(timezone="UTC")]\n```\nDone.',
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

  it('passes a chunk without trigger characters straight through, once the first word is known', () => {
    let calls = 0;
    const gate = new StreamGate(() => (calls++, true));
    // The first word may be a bare call's name (`get_time(`): held until the next character shows it is not.
    expect(gate.push('Hello')).toBe('');
    expect(gate.push(', world')).toBe('Hello, world');
    for (const chunk of ['.\n', '  indented', ' 100% plain: no markup', 'word(']) {
      expect(gate.push(chunk)).toBe(chunk);
    }
    expect(gate.end()).toBe('');
    expect(calls).toBe(0);
  });

  it('releases blanks at the start, and a first word as soon as it cannot be a name', () => {
    const gate = new StreamGate(isCall);
    expect(gate.push('\n  ')).toBe('\n  ');
    expect(gate.push('Sur')).toBe('');
    expect(gate.push('e')).toBe('');
    expect(gate.push(' thing')).toBe('Sure thing');
    expect(gate.push('(')).toBe('(');
    expect(gate.end()).toBe('');
    expect(new StreamGate(isCall).push('Sure! ')).toBe('Sure! ');
    expect(new StreamGate(isCall).push('3(x)')).toBe('3(x)');
    expect(new StreamGate(isCall).push('Größe(')).toBe('Größe(');
  });

  it('releases a mid-line bracket as soon as the next character shows it opens no call', () => {
    const gate = new StreamGate(isCall);
    expect(gate.push('Use {')).toBe('Use ');
    expect(gate.push('b')).toBe('{b');
    expect(gate.push('} or { ')).toBe('} or ');
    expect(gate.push('1}, a [')).toBe('{ 1}, a ');
    expect(gate.push('1, 2]')).toBe('[1, 2]');
    expect(gate.push(' [see')).toBe(' ');
    expect(gate.push(' here](x)')).toBe('[see here](x)');
    expect(gate.push(" I'd call [get_time")).toBe(" I'd call ");
    expect(gate.push('] later.')).toBe('[get_time] later.');
    expect(gate.push(' {"a": 1')).toBe(' ');
    expect(gate.push('} done.')).toBe('{"a": 1} done.');
    expect(gate.end()).toBe('');
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

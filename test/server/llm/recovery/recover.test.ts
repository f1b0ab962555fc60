import { describe, expect, it } from 'vitest';
import { recoverToolCalls } from '../../../../server/llm/recovery/recover.js';
import { callsOf, recover } from './recover-helpers.js';

describe('recoverToolCalls', () => {
  it('returns prose without markup at once, unchanged', () => {
    let asked = 0;
    const text = '  I could use get_time to check, but it is noon.  ';
    expect(recoverToolCalls(text, () => (asked++, 'get_time'))).toEqual({ calls: [], text });
    expect(asked).toBe(0);
  });

  it('leaves text that only mentions tools or holds ordinary brackets unchanged', () => {
    for (const text of [
      'I could use get_time to check the time in Tokyo.',
      'Use the `get_time` tool, e.g. get_time(timezone="UTC").',
      'The user asked for JSON:\n{"name": "Alice", "age": 3}',
      '{"name": "Alice", "age": 3}',
      'Read [the guide](http://x) and [link](http://x).',
      '[1, 2, 3]',
      'Here is a script:\n```python\ndef main():\n    get_time(timezone="UTC")\n```',
      'Tags like <b>bold</b> and <tool_call> are markup.',
      '<tool_call>\n{"name": "not_offered", "arguments": {}}\n</tool_call>',
      '[not_offered(x=1)]',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('leaves what only looks like the looser shapes (calls after prose, bare calls) as text', () => {
    for (const text of [
      'You can call get_time(timezone="UTC") yourself.',
      'The answer is f(x) = 2x.',
      'Use {braces} for sets, like {1, 2}.',
      'Here is an example tool definition: {"name": "get_time", "description": "Returns the time.", "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}}}',
      '{"name": "Alice", "arguments": {"age": 3}}',
      'Example:\n```python\nprint(get_time("UTC"))\n```',
      '[see here](http://x)',
      "I'd call [get_time] later.",
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('reads a reply opening like a bare call even without any markup character', () => {
    let asked = 0;
    const r = recoverToolCalls('get_time()', (n) => (asked++, n === 'get_time' ? n : undefined));
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: {}, shape: 'pythonic' }], text: '' });
    expect(asked).toBeGreaterThan(0);
  });

  it('sets writtenName only when the resolver changed the name', () => {
    const r = recover('[get_time(), functions.calculate(expression="1")]');
    expect(r.calls[0]).not.toHaveProperty('writtenName');
    expect(r.calls[1]).toMatchObject({ name: 'calculate', writtenName: 'functions.calculate' });
  });

  it('collects calls of different shapes in text order', () => {
    const r = recover('<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>\nAnd also:\n[calculate(expression="2")]\n```tool_code\nsearch_files(pattern="a")\n```');
    expect(r.calls.map((c) => [c.name, c.shape])).toEqual([
      ['get_time', 'hermes'],
      ['calculate', 'pythonic'],
      ['search_files', 'gemma-tool-code'],
    ]);
    expect(r.text).toBe('And also:');
  });

  it('lets the enclosing markup win over the JSON inside it', () => {
    const fenced = recover('```json\n{"name": "get_time", "parameters": {"timezone": "UTC"}}\n```');
    expect(fenced.calls.map((c) => c.shape)).toEqual(['fenced-json']);
    const tagged = recover('<tool_call>\n{"name": "get_time", "parameters": {}}\n</tool_call>');
    expect(tagged.calls.map((c) => c.shape)).toEqual(['hermes']);
  });

  it('keeps a block naming an unoffered tool as text whole, without taking the JSON inside it', () => {
    const text = '<tool_call>\n{"name": "get_time", "arguments": {}}\n{"name": "unoffered", "arguments": {}}\n</tool_call>';
    expect(recover(text)).toEqual({ calls: [], text });
  });

  it('takes a code fence that holds nothing but a call', () => {
    const r = recover('Calling:\n```xml\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>\n```\nWait.');
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: {}, shape: 'hermes' }], text: 'Calling:\nWait.' });
    const shared = recover('```\n<function=get_time>{}</function>\nand a note\n```');
    expect(shared.text).toBe('```\nand a note\n```');
  });

  it('collapses the whitespace where a region was cut, never leaving double blank lines', () => {
    const call = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>';
    expect(recover(`Before.\n\n\n${call}\n\n\nAfter.`).text).toBe('Before.\n\nAfter.');
    expect(recover(`Before.\n${call}\n${call}\nAfter.`).text).toBe('Before.\nAfter.');
    expect(recover(`Before ${call} after.`).text).toBe('Before after.');
    expect(recover(`Before${call}after`).text).toBe('Before after');
    expect(recover(`Keep\n\n\n\nthis.\n${call}`).text).toBe('Keep\n\n\n\nthis.');
    expect(recover(`\n  ${call}  \n`).text).toBe('');
  });

  // A quadratic scan would take minutes here and fail on the test timeout; the time itself is npm run bench's to judge.
  it('reads long text full of brackets without calls', () => {
    const noisy = '{ not json [ nor ( python <tag> `code`\n'.repeat(20_000);
    expect(recover(noisy).calls).toEqual([]);
  });

  it('reads a long reply with one call at its end', () => {
    const prose = 'Some words about time zones.\n'.repeat(5_000);
    expect(callsOf(recover(`${prose}[get_time(timezone="UTC")]`))).toEqual([['get_time', { timezone: 'UTC' }]]);
  });
  it('takes the tags a call was wrapped in with it, for families without a shape of their own', () => {
    const call = '{"name": "get_time", "arguments": {"timezone": "UTC"}}';
    for (const text of [`<function_call>${call}</function_call>`, `<tools>\n${call}\n</tools>`, `functools[${call}]`]) {
      const r = recover(text);
      expect(callsOf(r), text).toEqual([['get_time', { timezone: 'UTC' }]]);
      expect(r.text, text).toBe('');
    }
    // A tag pair that is not around the call alone stays.
    expect(recover(`<b>Note:</b>\n${call}`).text).toBe('<b>Note:</b>');
  });
});

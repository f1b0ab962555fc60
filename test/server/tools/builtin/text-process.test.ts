import { Worker } from 'node:worker_threads';
import { describe, it, expect, vi, afterEach } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { textProcessTool, type TextMatch } from '../../../../server/tools/builtin/text-process.js';

type Args = Parameters<typeof textProcessTool.handler>[0];

const ctx = (signal = new AbortController().signal) => ({ signal, callId: 'c_test', client: 'test' });

// Results are a union by operation; tests read fields by name.
async function run(args: Args, signal?: AbortSignal): Promise<Record<string, unknown>> {
  return (await textProcessTool.handler(args, ctx(signal))) as Record<string, unknown>;
}

async function failure(args: Args, signal?: AbortSignal): Promise<ToolError> {
  try {
    await run(args, signal);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

const catastrophic = { text: 'a'.repeat(30) + 'b', pattern: '(a+)+$' };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('text_process: declaration', () => {
  it('is a safe, read-only, idempotent, closed-world tool with capped inputs', () => {
    expect(textProcessTool.name).toBe('text_process');
    expect(textProcessTool.risk).toBe('safe');
    expect(textProcessTool.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    const props = textProcessTool.parameters.properties as Record<string, Record<string, unknown>>;
    expect(textProcessTool.parameters.additionalProperties).toBe(false);
    expect(props.text!.maxLength).toBe(1_000_000);
    expect(props.pattern!.maxLength).toBe(1_000);
    expect(props.operation!.enum).toEqual(['uppercase', 'lowercase', 'trim', 'lines', 'words', 'count', 'replace', 'match']);
  });
});

describe('text_process: case and trim', () => {
  it('uppercases beyond ASCII (ß becomes SS)', async () => {
    expect(await run({ text: 'straße héllo', operation: 'uppercase' })).toEqual({ result: 'STRASSE HÉLLO' });
  });

  it('lowercases Greek and Cyrillic', async () => {
    expect(await run({ text: 'ΑΒΓ ДЖ', operation: 'lowercase' })).toEqual({ result: 'αβγ дж' });
  });

  it('leaves CJK text unchanged by case operations', async () => {
    expect(await run({ text: '北京', operation: 'uppercase' })).toEqual({ result: '北京' });
  });

  it('trims Unicode whitespace, including the ideographic space', async () => {
    expect(await run({ text: '\u3000\t hi \n\u00a0', operation: 'trim' })).toEqual({ result: 'hi' });
  });

  it.each(['uppercase', 'lowercase', 'trim'] as const)('accepts an empty string for %s', async (operation) => {
    expect(await run({ text: '', operation })).toEqual({ result: '' });
  });
});

describe('text_process: lines', () => {
  it('splits on \\n, \\r\\n and \\r', async () => {
    expect(await run({ text: 'a\nb\r\nc\rd', operation: 'lines' })).toEqual({ lines: ['a', 'b', 'c', 'd'], count: 4 });
  });

  it('does not add an empty line after a final newline', async () => {
    expect(await run({ text: 'a\nb\n', operation: 'lines' })).toEqual({ lines: ['a', 'b'], count: 2 });
  });

  it('keeps blank lines in the middle', async () => {
    expect(await run({ text: 'a\n\n\nb', operation: 'lines' })).toEqual({ lines: ['a', '', '', 'b'], count: 4 });
  });

  it('gives no lines for empty text and one empty line for a lone newline', async () => {
    expect(await run({ text: '', operation: 'lines' })).toEqual({ lines: [], count: 0 });
    expect(await run({ text: '\n', operation: 'lines' })).toEqual({ lines: [''], count: 1 });
  });
});

describe('text_process: words', () => {
  it('drops punctuation and keeps contractions and numbers whole', async () => {
    expect(await run({ text: "Hello, world! Don't panic: 3.14", operation: 'words' })).toEqual({
      words: ['Hello', 'world', "Don't", 'panic', '3.14'],
      count: 5,
    });
  });

  it('splits Chinese text that has no spaces into words', async () => {
    const { words } = await run({ text: '我爱北京天安门。', operation: 'words' });
    expect((words as string[]).length).toBeGreaterThan(1);
    expect((words as string[]).join('')).toBe('我爱北京天安门');
    expect(words).toContain('北京');
  });

  it('splits Japanese text that has no spaces into words', async () => {
    const { words } = await run({ text: '日本語のテキストです。', operation: 'words' });
    expect((words as string[]).length).toBeGreaterThan(1);
    expect((words as string[]).join('')).toBe('日本語のテキストです');
  });

  it('splits mixed scripts', async () => {
    const { words } = await run({ text: 'Pincer 工具 gateway', operation: 'words' });
    expect(words).toEqual(expect.arrayContaining(['Pincer', 'gateway']));
  });

  it('finds no words in empty text, punctuation or emoji', async () => {
    expect(await run({ text: '', operation: 'words' })).toEqual({ words: [], count: 0 });
    expect(await run({ text: '... !!! 👍', operation: 'words' })).toEqual({ words: [], count: 0 });
  });

  it('counts every word of a long text that is segmented in pieces', async () => {
    const result = await run({ text: 'alpha beta, '.repeat(20_000), operation: 'words' });
    expect(result.count).toBe(40_000);
  });

  it('keeps a single word longer than a segmentation piece whole', async () => {
    expect(await run({ text: 'x'.repeat(5_000), operation: 'words' })).toEqual({ words: ['x'.repeat(5_000)], count: 1 });
  });
});

describe('text_process: count', () => {
  it('counts ASCII text', async () => {
    expect(await run({ text: 'one two\nthree', operation: 'count' })).toEqual({
      characters: 13,
      graphemes: 13,
      words: 3,
      lines: 2,
      bytes: 13,
    });
  });

  it('counts zeros for empty text', async () => {
    expect(await run({ text: '', operation: 'count' })).toEqual({
      characters: 0,
      graphemes: 0,
      words: 0,
      lines: 0,
      bytes: 0,
    });
  });

  it('counts CJK characters as one code point and three UTF-8 bytes each', async () => {
    expect(await run({ text: '北京', operation: 'count' })).toMatchObject({ characters: 2, graphemes: 2, bytes: 6 });
  });

  it('counts an emoji with a skin tone as two code points but one grapheme', async () => {
    expect(await run({ text: '👍🏽', operation: 'count' })).toMatchObject({ characters: 2, graphemes: 1, bytes: 8 });
  });

  it('counts a family emoji joined by ZWJ as one grapheme', async () => {
    expect(await run({ text: '👨‍👩‍👧', operation: 'count' })).toMatchObject({ characters: 5, graphemes: 1 });
  });

  it('counts a letter with a combining accent as one grapheme', async () => {
    expect(await run({ text: 'e\u0301', operation: 'count' })).toMatchObject({ characters: 2, graphemes: 1 });
  });

  it('counts CR LF as one grapheme', async () => {
    expect(await run({ text: 'a\r\nb', operation: 'count' })).toMatchObject({ characters: 4, graphemes: 3, lines: 2 });
  });

  it('counts graphemes correctly across segmentation pieces of a long text', async () => {
    expect(await run({ text: '👨‍👩‍👧 é'.repeat(3_000), operation: 'count' })).toMatchObject({ graphemes: 9_000 });
  });
});

describe('text_process: replace', () => {
  it('replaces every literal occurrence and counts them', async () => {
    expect(await run({ text: 'a-b-c', operation: 'replace', pattern: '-', replacement: '+' })).toEqual({
      result: 'a+b+c',
      replacements: 2,
    });
  });

  it('treats regex characters in a literal pattern literally', async () => {
    expect(await run({ text: 'a.b.c', operation: 'replace', pattern: '.', replacement: '!' })).toEqual({
      result: 'a!b!c',
      replacements: 2,
    });
  });

  it('treats "$&" and "$1" in a literal replacement literally', async () => {
    expect(await run({ text: 'price', operation: 'replace', pattern: 'price', replacement: '$& $1' })).toEqual({
      result: '$& $1',
      replacements: 1,
    });
  });

  it('deletes matches when the replacement is empty or missing', async () => {
    expect(await run({ text: 'a b c', operation: 'replace', pattern: ' ', replacement: '' })).toMatchObject({ result: 'abc' });
    expect(await run({ text: 'a b c', operation: 'replace', pattern: ' ' })).toMatchObject({ result: 'abc' });
  });

  it('reports zero replacements when nothing matches', async () => {
    expect(await run({ text: 'abc', operation: 'replace', pattern: 'x', replacement: 'y' })).toEqual({
      result: 'abc',
      replacements: 0,
    });
  });

  it('replaces CJK text', async () => {
    expect(await run({ text: '我爱北京', operation: 'replace', pattern: '北京', replacement: '上海' })).toMatchObject({
      result: '我爱上海',
    });
  });

  it('refuses case-insensitive flags on a literal replace and says how to get them', async () => {
    const error = await failure({ text: 'A', operation: 'replace', pattern: 'a', flags: 'i' });
    expect(error.errorName).toBe('INVALID_FLAGS');
    expect(error.message).toMatch(/"regex": true/);
  });

  it('refuses a literal replace whose result would be enormous', async () => {
    const error = await failure({
      text: 'a'.repeat(10_000),
      operation: 'replace',
      pattern: 'a',
      replacement: 'b'.repeat(10_000),
    });
    expect(error.errorName).toBe('RESULT_TOO_LARGE');
  });

  it('refuses, before building it, a result longer than the longest text it takes (1,000,000 characters)', async () => {
    const error = await failure({ text: 'a'.repeat(3_100), operation: 'replace', pattern: 'a', replacement: 'b'.repeat(3_200) });
    expect(error.errorName).toBe('RESULT_TOO_LARGE');
    expect(error.message).toBe('The result would be 9920000 characters; the limit is 1000000. Process a smaller text.');
  });

  it('uses capture groups with regex: true', async () => {
    expect(
      await run({ text: 'a1b22', operation: 'replace', pattern: '(\\d+)', replacement: '<$1>', regex: true }),
    ).toEqual({ result: 'a<1>b<22>', replacements: 2 });
  });

  it('uses named groups with regex: true', async () => {
    expect(
      await run({
        text: '2026-11-29',
        operation: 'replace',
        pattern: '(?<y>\\d{4})-(?<m>\\d\\d)-(?<d>\\d\\d)',
        replacement: '$<d>/$<m>/$<y>',
        regex: true,
      }),
    ).toEqual({ result: '29/11/2026', replacements: 1 });
  });

  it('ignores case with the i flag and replaces every match without g', async () => {
    expect(
      await run({ text: 'Cat cat CAT', operation: 'replace', pattern: 'cat', replacement: 'dog', regex: true, flags: 'i' }),
    ).toEqual({ result: 'dog dog dog', replacements: 3 });
  });

  it('anchors per line with the m flag', async () => {
    expect(
      await run({ text: 'a\nb', operation: 'replace', pattern: '^', replacement: '> ', regex: true, flags: 'm' }),
    ).toMatchObject({ result: '> a\n> b', replacements: 2 });
  });
});

describe('text_process: match', () => {
  it('returns every match with its index and groups, null for a group that did not take part', async () => {
    const result = await run({ text: 'a1 b22', operation: 'match', pattern: '([a-z])(\\d+)(x)?' });
    expect(result).toEqual({
      matches: [
        { match: 'a1', index: 0, groups: ['a', '1', null] },
        { match: 'b22', index: 3, groups: ['b', '22', null] },
      ],
      count: 2,
      truncated: false,
    });
  });

  it('returns named groups', async () => {
    const { matches } = await run({ text: 'k=v', operation: 'match', pattern: '(?<key>\\w+)=(?<value>\\w+)' });
    expect((matches as TextMatch[])[0]!.named_groups).toEqual({ key: 'k', value: 'v' });
  });

  it('returns no matches for empty text', async () => {
    expect(await run({ text: '', operation: 'match', pattern: 'a' })).toEqual({ matches: [], count: 0, truncated: false });
  });

  it('matches CJK text and counts index in UTF-16 code units', async () => {
    const { matches } = await run({ text: '👍北京', operation: 'match', pattern: '北京' });
    expect(matches).toEqual([{ match: '北京', index: 2, groups: [] }]);
  });

  it('matches whole code points with the u flag', async () => {
    const { count } = await run({ text: '👍👍', operation: 'match', pattern: '.', flags: 'u' });
    expect(count).toBe(2);
  });

  it('terminates on a pattern that matches the empty string', async () => {
    expect(await run({ text: 'abc', operation: 'match', pattern: 'x*' })).toMatchObject({ count: 4, truncated: false });
  });

  it('stops at 1,000 matches and says the list is truncated', async () => {
    const result = await run({ text: 'a'.repeat(5_000), operation: 'match', pattern: 'a' });
    expect(result).toMatchObject({ count: 1_000, truncated: true });
  });

  it('keeps user patterns as data: code in a pattern is never run', async () => {
    const pattern = '`; process.exit(1); `';
    expect(await run({ text: 'x', operation: 'match', pattern })).toMatchObject({ count: 0 });
    const replaced = await run({ text: 'x', operation: 'replace', pattern: 'x', replacement: '${process.exit(1)}', regex: true });
    expect(replaced).toMatchObject({ result: '${process.exit(1)}' });
  });
});

describe('text_process: regex safety', () => {
  it('stops a catastrophically backtracking match with REGEX_TIMEOUT', async () => {
    const error = await failure({ ...catastrophic, operation: 'match' });
    expect(error.errorName).toBe('REGEX_TIMEOUT');
    expect(error.message).toMatch(/simpler pattern/);
  });

  it('stops a catastrophically backtracking replace with REGEX_TIMEOUT', async () => {
    const error = await failure({ ...catastrophic, operation: 'replace', regex: true, replacement: 'x' });
    expect(error.errorName).toBe('REGEX_TIMEOUT');
  });

  it('keeps the event loop running while a catastrophic regex is being stopped', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    try {
      await failure({ ...catastrophic, operation: 'match' });
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('terminates the worker when the time limit passes', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    await failure({ ...catastrophic, operation: 'match' });
    expect(terminate).toHaveBeenCalled();
    await expect(terminate.mock.results[0]!.value).resolves.toBeTypeOf('number');
  });

  it('stops the worker when the call is cancelled', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const controller = new AbortController();
    const pending = failure({ ...catastrophic, operation: 'match' }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect((await pending).errorName).toBe('CALL_CANCELLED');
    expect(terminate).toHaveBeenCalled();
  });

  it('does not start a worker for an already cancelled call', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure({ text: 'a', operation: 'match', pattern: 'a' }, controller.signal);
    expect(error.errorName).toBe('CALL_CANCELLED');
  });

  it('answers a simple regex after a timed-out one (no stuck worker)', async () => {
    await failure({ ...catastrophic, operation: 'match' });
    expect(await run({ text: 'abc', operation: 'match', pattern: 'b' })).toMatchObject({ count: 1 });
  });
});

describe('text_process: invalid input', () => {
  it('reports an invalid pattern with the engine message', async () => {
    const error = await failure({ text: 'a', operation: 'match', pattern: '(' });
    expect(error.errorName).toBe('INVALID_REGEX');
    expect(error.message).toMatch(/Unterminated group/);
  });

  it('reports an invalid pattern in a regex replace', async () => {
    expect((await failure({ text: 'a', operation: 'replace', pattern: '[', regex: true })).errorName).toBe('INVALID_REGEX');
  });

  it('accepts a pattern that is only invalid as a regex in a literal replace', async () => {
    expect(await run({ text: 'f(x', operation: 'replace', pattern: '(', replacement: '[' })).toMatchObject({
      result: 'f[x',
    });
  });

  it.each(['x', 'd', 'v', 'gg', 'ii', 'g i'])('refuses flags %j', async (flags) => {
    expect((await failure({ text: 'a', operation: 'match', pattern: 'a', flags })).errorName).toBe('INVALID_FLAGS');
  });

  it('accepts every allowed flag at once', async () => {
    expect(await run({ text: 'A', operation: 'match', pattern: 'a', flags: 'gimsuy' })).toMatchObject({ count: 1 });
  });

  it.each(['replace', 'match'] as const)('asks for a pattern when %s has none or an empty one', async (operation) => {
    expect((await failure({ text: 'a', operation })).errorName).toBe('MISSING_PATTERN');
    expect((await failure({ text: 'a', operation, pattern: '' })).errorName).toBe('MISSING_PATTERN');
  });

  it('refuses a pattern over 1,000 characters', async () => {
    const error = await failure({ text: 'a', operation: 'match', pattern: 'a'.repeat(1_001) });
    expect(error.errorName).toBe('PATTERN_TOO_LONG');
  });

  it('refuses text over 1,000,000 characters', async () => {
    expect((await failure({ text: 'a'.repeat(1_000_001), operation: 'trim' })).errorName).toBe('TEXT_TOO_LONG');
  });

  it('refuses an unknown operation', async () => {
    const error = await failure({ text: 'a', operation: 'reverse' as Args['operation'] });
    expect(error.errorName).toBe('INVALID_OPERATION');
    expect(error.message).toMatch(/uppercase/);
  });

  it('refuses a non-string text', async () => {
    expect((await failure({ text: null as unknown as string, operation: 'trim' })).errorName).toBe('INVALID_TEXT');
  });
});

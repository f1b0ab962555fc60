import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../server/tools/registry.js';
import { compileLinear, PatternRefusal } from '../../../server/tools/linear-regexp.js';
import { linearFormats } from '../../../server/tools/string-formats.js';
import { closeSchema, compileValidator } from '../../../server/tools/validator.js';

/**
 * Schema regular expressions run in linear time: patterns, patternProperties keys and formats, with JavaScript's
 * meaning kept where RE2's differs, and refusals that say what the linear-time engine cannot run.
 */

const refusal = (pattern: string): string => {
  try {
    compileLinear(pattern);
  } catch (error) {
    expect(error).toBeInstanceOf(PatternRefusal);
    return (error as Error).message;
  }
  throw new Error(`${pattern} was not refused`);
};

/** The same verdicts as JavaScript's own engine with the u flag (on inputs that do not make it backtrack). */
function sameAsJavaScript(pattern: string, inputs: string[]): void {
  const linear = compileLinear(pattern);
  const native = new RegExp(pattern, 'u');
  for (const input of inputs) expect(linear.test(input), `${pattern} on ${JSON.stringify(input)}`).toBe(native.test(input));
}

describe('compiling a schema pattern for the linear-time engine', () => {
  it('runs ^(a|aa)+$ on 100,000 characters (JavaScript\'s engine would not finish with 40)', () => {
    const linear = compileLinear('^(a|aa)+$');
    expect(linear.test('a'.repeat(100_000) + 'b')).toBe(false);
    expect(linear.test('a'.repeat(100_000))).toBe(true);
  });

  it('searches like RegExp.test: a pattern is not anchored unless it says so', () => {
    sameAsJavaScript('b+', ['abbbc', 'ac', '']);
    sameAsJavaScript('^b', ['ba', 'ab']);
  });

  it('keeps JavaScript\'s \\s (Unicode white space) and \\S, alone and inside classes', () => {
    const spaces = [' ', '\t', '\v', '\f', '\u00a0', '\u1680', '\u2003', '\u2028', '\u202f', '\u3000', '\ufeff'];
    sameAsJavaScript('^\\s$', [...spaces, 'a', '']);
    sameAsJavaScript('^\\S+$', ['abc', 'a\u00a0b', 'a\vb', '😀']);
    sameAsJavaScript('^[^\\s]+$', ['abc', 'a\u3000b']);
    sameAsJavaScript('^[\\s\\d]+$', ['1 2\u00a03', '1a']);
    sameAsJavaScript('^[\\S]$', ['a', ' ', '\ufeff']);
  });

  it('keeps JavaScript\'s dot: any code point but the four line terminators', () => {
    sameAsJavaScript('^.$', ['a', '😀', '\n', '\r', '\u2028', '\u2029', '\u0085']);
    sameAsJavaScript('^a.c$', ['abc', 'a\rc', 'a😀c']);
  });

  it('reads escapes as the u flag does: \\u{…}, surrogate pairs, \\x, \\cX, \\0, \\v, [\\b]', () => {
    sameAsJavaScript('^\\u{1F600}$', ['😀', '😃']);
    sameAsJavaScript('^\\uD83D\\uDE00$', ['😀', '\ud83d']);
    sameAsJavaScript('^\\u00e9\\x41$', ['éA', 'eA']);
    sameAsJavaScript('^\\cJ\\0\\v$', ['\n\0\v', 'J0v']);
    sameAsJavaScript('^[\\b]$', ['\b', 'b']);
    sameAsJavaScript('\\bfoo\\b', ['a foo b', 'afoo']);
  });

  it('keeps named groups, Unicode properties and classes as JavaScript reads them', () => {
    sameAsJavaScript('^(?<year>\\d{4})-(?<month>\\d\\d)$', ['2024-05', '24-05']);
    sameAsJavaScript('^\\p{Lu}+$', ['ABC', 'ÄÖ', 'abc']);
    sameAsJavaScript('^\\p{Letter}+$', ['abc', 'ж', '1']);
    sameAsJavaScript('^\\p{Script=Greek}+$', ['αβγ', 'abc']);
    sameAsJavaScript('^[[:a]$', ['[', ':', 'a', 'b']);
    sameAsJavaScript('^[a\\^-]$', ['^', '-', 'a', 'b']);
    sameAsJavaScript('^[]$', ['', 'a']);
    sameAsJavaScript('^[^]$', ['a', '\n', '']);
    sameAsJavaScript('^a{2,3}?$', ['a', 'aa', 'aaaa']);
  });

  it('refuses a lookahead, naming the pattern and why', () => {
    expect(refusal('^(?=x)\\w+$')).toBe(
      'the pattern "^(?=x)\\\\w+$" uses a lookahead (?=…), which the linear-time engine cannot run; rewrite the pattern without it',
    );
    expect(refusal('^(?!admin)')).toMatch(/uses a negative lookahead/);
  });

  it('refuses lookbehinds and backreferences, numbered and named', () => {
    expect(refusal('(?<=a)b')).toMatch(/uses a lookbehind \(\?<=…\)/);
    expect(refusal('(?<!a)b')).toMatch(/uses a lookbehind \(\?<!…\)/);
    expect(refusal('(a)\\1')).toMatch(/uses a backreference \(\\1\)/);
    expect(refusal('(?<w>a)\\k<w>')).toMatch(/uses a named backreference/);
  });

  it('refuses what is not a JavaScript pattern, and what RE2 cannot build, with the reason', () => {
    expect(refusal('(')).toMatch(/is not a valid regular expression \(.*Unterminated group\)/);
    expect(refusal('\\-')).toMatch(/is not a valid regular expression/); // not valid with the u flag Ajv passes
    expect(refusal('a{1001}')).toMatch(/cannot be run by the linear-time engine \(invalid repeat count/);
    expect(refusal('\\uD800')).toMatch(/lone surrogate/);
  });

  it('gives each pattern its own text, so Ajv does not mix up two compiled patterns', () => {
    expect(compileLinear('a').toString()).toBe('/a/u');
    expect(compileLinear('b').toString()).not.toBe(compileLinear('a').toString());
  });
});

describe('validating arguments with patterns', () => {
  const validator = compileValidator(
    closeSchema({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(a|aa)+$' }, b: { type: 'string', pattern: '^x' } },
      patternProperties: { '^n(a|aa)+$': { type: 'number' } },
    }),
  );

  it('checks every pattern of a schema with its own expression', () => {
    expect(validator({ a: 'aaa', b: 'xy' })).toEqual({ ok: true });
    expect(validator({ a: 'aaa', b: 'yx' })).toMatchObject({ ok: false, problems: [{ path: '/b', message: '"b" must match pattern "^x"' }] });
    expect(validator({ a: 'a'.repeat(50_000) + 'b' })).toMatchObject({ ok: false, problems: [{ path: '/a' }] });
  });

  it('checks patternProperties keys on the linear-time engine too', () => {
    expect(validator({ ['n' + 'a'.repeat(50_000)]: 'x' })).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/must be number/) }] });
    expect(validator({ ['n' + 'a'.repeat(50_000) + 'b']: 'x' })).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/unknown property/) }] });
  });

  it('refuses to register a tool whose schema has a lookahead, saying which pattern and why', () => {
    const registry = new ToolRegistry();
    expect(() =>
      registry.register({
        name: 'guarded',
        description: 'x',
        parameters: { type: 'object', properties: { word: { type: 'string', pattern: '^(?!admin)\\w+$' } } },
        category: 'test',
        risk: 'safe',
        annotations: {},
        handler: () => 1,
      }),
    ).toThrow('Cannot register tool "guarded" from builtin: in its parameters, the pattern "^(?!admin)\\\\w+$" uses a negative lookahead');
    expect(registry.get('guarded')).toBeUndefined();
  });
});

describe('string formats cannot stall a check', () => {
  it('runs every format ajv-formats writes as one expression on the linear-time engine, url included', () => {
    expect(Object.keys(linearFormats()).sort()).toEqual(
      ['email', 'ipv4', 'ipv6', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'uri-reference', 'uri-template', 'url', 'uuid'].sort(),
    );
    // The ones left as ajv-formats has them are code or look ahead (reviewed: linear or length-capped).
    const kept = Object.keys(fullFormats).filter((name) => !(name in linearFormats()));
    expect(kept.sort()).toEqual(['binary', 'byte', 'date', 'date-time', 'double', 'duration', 'float', 'hostname', 'int32', 'int64', 'iso-date-time', 'iso-time', 'password', 'regex', 'time', 'uri'].sort());
  });

  it('checks a megabyte string crafted against url\'s quadratic userinfo (seconds for 20,000 characters before)', () => {
    const url = compileValidator({ type: 'object', properties: { u: { type: 'string', format: 'url' } } });
    expect(url({ u: 'http://a' + ':'.repeat(1 << 20) + ' ' })).toMatchObject({ ok: false });
    expect(url({ u: 'https://example.com/path?q=1' })).toEqual({ ok: true });
    expect(url({ u: 'example.com' })).toMatchObject({ ok: false });
  });

  it('checks the formats kept as code on megabyte strings crafted against their expressions (a quadratic one would not finish)', () => {
    const M = 1 << 20;
    const crafted: Record<string, string[]> = {
      uri: ['a://' + 'a'.repeat(M) + ' ', 'a://' + ':'.repeat(M) + ' ', 'a://' + '%00'.repeat(M / 3) + ' ', 'a://a@' + 'a@'.repeat(M / 2), 'a://[' + '1:'.repeat(M / 2) + ']'],
      'date-time': ['2020-01-01T00:00:00.' + '1'.repeat(M) + 'x', 't'.repeat(M)],
      time: ['00:00:00.' + '1'.repeat(M) + 'x'],
      duration: ['P' + '1'.repeat(M) + 'x', 'P1Y' + '1'.repeat(M) + 'x'],
      hostname: ['a'.repeat(M), 'a.'.repeat(M / 2)],
      regex: ['('.repeat(M), '(?:a|'.repeat(M / 5)],
      byte: ['A'.repeat(M) + '=', 'AAAA\n'.repeat(M / 5) + '!'],
    };
    for (const [format, inputs] of Object.entries(crafted)) {
      const check = compileValidator({ type: 'object', properties: { s: { type: 'string', format } } });
      for (const input of inputs) expect(check({ s: input }).ok, format).toBeTypeOf('boolean');
    }
  }, 60_000);

  it('keeps what the formats accept and refuse', () => {
    const cases: [string, string, string][] = [
      ['email', 'someone@example.com', 'someone@@example.com'],
      ['uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567'],
      ['ipv6', '2001:db8::1', '2001:::1'],
      ['uri-reference', '../a?b#c', 'a b'],
      ['date-time', '2024-02-29T12:00:00Z', '2023-02-29T12:00:00Z'],
      ['hostname', 'a.example', '-a.example'],
      ['duration', 'P1DT2H', 'PT'],
    ];
    for (const [format, good, bad] of cases) {
      const check = compileValidator({ type: 'object', properties: { s: { type: 'string', format } } });
      expect(check({ s: good }), `${format} ${good}`).toEqual({ ok: true });
      expect(check({ s: bad }), `${format} ${bad}`).toMatchObject({ ok: false });
    }
  });
});

describe('other checks a client\'s arguments cannot blow up', () => {
  it('checks uniqueItems over 100,000 objects in one pass (Ajv compared every pair)', () => {
    const unique = compileValidator({ type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });
    const items = Array.from({ length: 100_000 }, (_, i) => ({ i }));
    expect(unique({ list: items })).toEqual({ ok: true });
    expect(unique({ list: [...items, { i: 5 }] })).toMatchObject({ ok: false, problems: [{ message: '"list" must NOT have duplicate items (items ## 5 and 100000 are identical)' }] });
  });

  it('keeps uniqueItems\' deep equality: key order does not matter, types do', () => {
    const unique = compileValidator({ type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });
    expect(unique({ list: [{ a: 1, b: [2, { c: 3 }] }, { b: [2, { c: 3 }], a: 1 }] })).toMatchObject({ ok: false });
    expect(unique({ list: [1, '1', [1], { 1: 1 }, null, true] })).toEqual({ ok: true });
    expect(unique({ list: [[1, 2], [2, 1]] })).toEqual({ ok: true });
  });

  it('names the first 20 problems of a megabyte of wrong arguments, and how many more there are', () => {
    const strings = compileValidator({ type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } });
    const result = strings({ list: Array.from({ length: 200_000 }, () => 1) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(21);
    expect(result.problems.at(-1)).toEqual({ path: '', message: 'and 199980 more problems like these' });
  });
});

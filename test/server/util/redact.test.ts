import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, redactSecrets } from '../../../server/util/redact.js';
import { CONTEXT_SAMPLES, fake } from '../../helpers/secret-samples.js';

/** Redaction of values: by known value, of live output, of objects' keys and values. */

describe('redaction by value', () => {
  const llmKey = 'zq9-LocalLLM-Key-0042-not-a-known-shape';

  it('replaces a known value wherever it occurs, inside words and JSON text too', () => {
    const redactor = new Redactor(() => [llmKey]);
    expect(redactor.text(`key=${llmKey};`)).toBe(`key=${REDACTED};`);
    expect(redactor.text(`prefix${llmKey}suffix`)).toBe(`prefix${REDACTED}suffix`);
    expect(redactor.redact({ file: JSON.stringify({ llm: { base: 'x', value: llmKey } }) })).toEqual({
      file: JSON.stringify({ llm: { base: 'x', value: REDACTED } }),
    });
  });

  it('ignores known values shorter than 12 characters (they would match ordinary text)', () => {
    const redactor = new Redactor(() => ['hunter2', 'short-value', undefined, null]);
    expect(redactor.text('hunter2 and short-value stay')).toBe('hunter2 and short-value stay');
  });

  it('follows the values as they change: a key set later is redacted from then on', () => {
    let known: string[] = [];
    const redactor = new Redactor(() => known);
    expect(redactor.text(`the key ${llmKey}`)).toBe(`the key ${llmKey}`);
    known = [llmKey];
    expect(redactor.text(`the key ${llmKey}`)).toBe(`the key ${REDACTED}`);
  });

  it('replaces the longer of two overlapping values whole', () => {
    const redactor = new Redactor(() => ['abcdefghijkl', 'abcdefghijklmnopqrstu']);
    expect(redactor.text('x abcdefghijklmnopqrstu y')).toBe(`x ${REDACTED} y`);
  });

  it("records redact arguments, result, the error's message and the policy's reason", () => {
    const redactor = new Redactor(() => [llmKey]);
    const record = {
      id: 'c_1',
      arguments: { path: 'notes.txt', note: `uses ${llmKey}` },
      result: { content: `LLM_KEY=${llmKey}` },
      error: { name: 'TOOL_EXECUTION_ERROR', message: `failed with ${llmKey}` },
      reason: `asks because of ${llmKey}`,
    };
    expect(JSON.stringify(redactor.record(record))).not.toContain(llmKey);
    expect(redactor.record(record)).toMatchObject({ id: 'c_1', arguments: { path: 'notes.txt' } });
    expect(record.arguments.note).toContain(llmKey); // the input is left as it was
  });
});

describe('live output, chunk by chunk', () => {
  const token = `ghp_${fake(36, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;

  function feed(chunks: string[], redactor = new Redactor()): { shown: string[]; all: string } {
    const stream = redactor.stream();
    const shown = chunks.map((chunk) => stream.push(chunk));
    shown.push(stream.end());
    return { shown, all: shown.join('') };
  }

  it('a token cut in two by the chunks is never shown, in part or whole', () => {
    const text = `cloning with ${token} now\ndone\n`;
    for (let cut = 1; cut < text.length; cut += 3) {
      const { shown, all } = feed([text.slice(0, cut), text.slice(cut)]);
      expect(all).toBe(`cloning with ${REDACTED} now\ndone\n`);
      for (const piece of shown) expect(piece).not.toContain(token.slice(0, 12));
    }
  });

  it('whole lines go out at once; an unfinished line waits for its end or the end of the output', () => {
    const stream = new Redactor().stream();
    expect(stream.push('line one\nline tw')).toBe('line one\n');
    expect(stream.push('o\r')).toBe('line two\r');
    expect(stream.push('Password: ')).toBe('');
    expect(stream.end()).toBe('Password: ');
  });

  it("a private key's lines are withheld from BEGIN to END, even one line per chunk", () => {
    const key = CONTEXT_SAMPLES.find((s) => s.name === 'PEM RSA private key')!.secret;
    const lines = `$ cat id_rsa\n${key}\n$ echo done\ndone\n`.split(/(?<=\n)/);
    const { all } = feed(lines);
    expect(all).toBe(`$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}\n-----END RSA PRIVATE KEY-----\n$ echo done\ndone\n`);
  });

  it('known values are redacted in live output too', () => {
    const { all } = feed(['OPENAI_BASE=x LLM=zq9-LocalLLM-', 'Key-0042-not-a-known-shape\n'], new Redactor(() => ['zq9-LocalLLM-Key-0042-not-a-known-shape']));
    expect(all).toBe(`OPENAI_BASE=x LLM=${REDACTED}\n`);
  });

  it('a very long line without an end is let through in redacted pieces rather than held', () => {
    const stream = new Redactor().stream();
    expect(stream.push('x'.repeat(5000))).toBe('');
    expect(stream.push(`${'y'.repeat(5000)} ${token}`).length).toBeGreaterThan(9000);
  });
});

describe('object keys and values', () => {
  it('still redacts secret-named entries whole, and now secrets inside other strings too', () => {
    const token = `ghp_${fake(36, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
    expect(redactSecrets({ password: 'hunter2', command: `git clone https://x:${token}@github.com/a/b`, count: 3 })).toEqual({
      password: REDACTED,
      command: `git clone https://x:${REDACTED}@github.com/a/b`,
      count: 3,
    });
  });

  it('redacts a secret used as an object key', () => {
    const key = `sk-proj-${fake(48, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
    expect(redactSecrets({ [key]: 'owner' })).toEqual({ [REDACTED]: 'owner' });
  });
});

describe('redactSecrets', () => {
  it.each([
    'token',
    'password',
    'passwd',
    'api_key',
    'apiKey',
    'x-api-key',
    'APIKey',
    'Authorization',
    'secret',
    'client_secret',
    'cookie',
    'Set-Cookie',
    'private_key',
    'privateKey',
    'access_token',
    'refreshToken',
    'sessionId',
    'credentials',
    'token2',
  ])('redacts the value of %s', (key) => {
    expect(redactSecrets({ [key]: 'hunter2-secret-value', keep: 'visible' })).toEqual({ [key]: REDACTED, keep: 'visible' });
  });

  it('redacts secrets nested in objects and arrays', () => {
    const input = {
      user: 'ann',
      config: { db: { password: 'p4ss', host: 'db.local' }, list: [{ api_key: 'k1' }, { api_key: 'k2', region: 'eu' }] },
      headers: [['Accept', 'text/html']],
    };
    expect(redactSecrets(input)).toEqual({
      user: 'ann',
      config: { db: { password: REDACTED, host: 'db.local' }, list: [{ api_key: REDACTED }, { api_key: REDACTED, region: 'eu' }] },
      headers: [['Accept', 'text/html']],
    });
  });

  it('redacts a whole object or list under a secret key', () => {
    expect(redactSecrets({ credentials: { user: 'a', pass: 'b' }, tokens: ['t1', 't2'] })).toEqual({
      credentials: REDACTED,
      tokens: REDACTED,
    });
  });

  it('redacts "Bearer …" and "Basic …" values wherever they are, keeping the scheme', () => {
    expect(
      redactSecrets({ header: 'Bearer eyJhbGciOiJIUzI1NiJ9.payload', list: ['ok', 'basic dXNlcjpwYXNzd29yZA=='], short: 'Bearer x' }),
    ).toEqual({ header: `Bearer ${REDACTED}`, list: ['ok', `basic ${REDACTED}`], short: 'Bearer x' });
    expect(redactSecrets('Bearer abcdefghijkl')).toBe(`Bearer ${REDACTED}`);
  });

  it.each([
    ['max_tokens', 256],
    ['token_count', 12],
    ['use_cookies', true],
    ['passage', 'It was a dark and stormy night.'],
    ['bypass', 'cache'],
    ['compass', 'north'],
    ['secretary', 'Ann'],
    ['tokenizer', 'bpe'],
    ['author', 'Ann'],
    ['keyboard', 'qwerty'],
    ['pwd', '/home/ann'],
    ['auth_method', 'basic'],
    ['password', ''],
    ['token', null],
  ])('leaves %s: %j alone', (key, value) => {
    expect(redactSecrets({ [key]: value })).toEqual({ [key]: value });
  });

  it('keeps an own "__proto__" key as data and never sets a prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true, "token": "t"}, "a": 1}') as Record<string, unknown>;
    const output = redactSecrets(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ polluted: true, token: REDACTED });
    expect((output as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('does not change its input', () => {
    const input = { password: 'p', nested: { token: 't', list: ['Bearer abcdefghijkl'] } };
    const copy = structuredClone(input);
    redactSecrets(input);
    expect(input).toEqual(copy);
  });

  it('records values as JSON would send them: a Date as its ISO string', () => {
    const at = new Date('2026-05-06T07:08:09.000Z');
    expect(redactSecrets({ at, list: [at] })).toEqual({ at: '2026-05-06T07:08:09.000Z', list: ['2026-05-06T07:08:09.000Z'] });
  });

  it('passes numbers, booleans and null through', () => {
    expect(redactSecrets([1, true, null, 'x'])).toEqual([1, true, null, 'x']);
  });

  it('cuts off absurdly deep values instead of overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => redactSecrets(deep)).not.toThrow();
  });
});

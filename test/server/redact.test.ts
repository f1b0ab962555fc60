import { rules as secretlintRules } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, redactSecrets } from '../../server/util/redact.js';
import { redactText } from '../../server/util/redact-text.js';
import { isSecretName } from '../../server/util/secret-names.js';
import { TOKEN_SHAPES } from '../../server/util/secret-shapes.js';
import { CONTEXT_SAMPLES, HARMLESS, SETTINGS, TOKEN_SAMPLES, fake, type SecretSample } from '../helpers/secret-samples.js';

/** Redaction by shape inside strings, by value, of live output; and what it must leave alone. */

const hiddenOf = (sample: SecretSample) => sample.hidden ?? sample.secret;

describe('every token shape, wherever it stands in a string', () => {
  for (const sample of TOKEN_SAMPLES) {
    for (const setting of SETTINGS) {
      it(`${sample.name} (${sample.secret.slice(0, 12)}…) ${setting.name}`, () => {
        const text = setting.wrap(sample.secret);
        const redacted = redactText(text);
        expect(redacted).not.toContain(hiddenOf(sample));
        expect(redacted).toContain(REDACTED);
        // Nothing else changed: the text around the secret is all still there.
        expect(redacted).toBe(text.replace(sample.secret, REDACTED));
      });
    }
  }

  it('has a sample for every shape the redactor knows', () => {
    const sampled = new Set(TOKEN_SAMPLES.map((s) => s.name));
    expect(TOKEN_SHAPES.map((shape) => shape.name).filter((name) => !sampled.has(name))).toEqual([]);
  });
});

describe('secrets that need their surroundings, wherever they stand', () => {
  for (const sample of CONTEXT_SAMPLES) {
    for (const setting of SETTINGS) {
      it(`${sample.name} ${setting.name}`, () => {
        const redacted = redactText(setting.wrap(sample.secret));
        expect(redacted).not.toContain(hiddenOf(sample));
        expect(redacted).toContain(REDACTED);
      });
    }
    if (sample.kept) {
      it(`${sample.name} keeps its context: ${sample.kept}`, () => {
        expect(redactText(`before ${sample.secret} after`)).toContain(sample.kept);
      });
    }
  }

  it('a curl command keeps everything but the credential', () => {
    const token = fake(40, 'abcdef0123456789');
    expect(redactText(`curl -sS -H 'Authorization: Bearer ${token}' -H 'Accept: application/json' https://api.example.com/v1/items`)).toBe(
      `curl -sS -H 'Authorization: Bearer ${REDACTED}' -H 'Accept: application/json' https://api.example.com/v1/items`,
    );
  });

  it('several secrets in one line are each redacted, and what is between them stays', () => {
    const github = `ghp_${fake(36, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
    const aws = 'AKIAQWERTYUIOPASDFGH';
    expect(redactText(`GITHUB_TOKEN=${github} AWS_ACCESS_KEY_ID=${aws} REGION=eu-west-1`)).toBe(
      `GITHUB_TOKEN=${REDACTED} AWS_ACCESS_KEY_ID=${REDACTED} REGION=eu-west-1`,
    );
  });

  it('a private key cut off before its END line is still redacted', () => {
    const key = CONTEXT_SAMPLES.find((s) => s.name === 'PEM RSA private key')!.secret;
    const cut = key.slice(0, key.indexOf('-----END'));
    const redacted = redactText(`${cut}`);
    expect(redacted).toBe(`-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}`);
  });

  it('a GCP service account file (private_key in JSON) loses the key and keeps the rest', () => {
    const key = CONTEXT_SAMPLES.find((s) => s.name === 'PEM RSA private key')!.secret.replace('RSA ', '');
    const file = JSON.stringify({ type: 'service_account', project_id: 'demo-123', private_key_id: fake(40, 'abcdef0123456789'), private_key: key, client_email: 'bot@demo-123.iam.gserviceaccount.com' }, null, 2);
    const redacted = redactText(file);
    expect(redacted).not.toContain(key.split('\n')[1]);
    expect(redacted).toContain('-----BEGIN PRIVATE KEY-----');
    expect(redacted).toContain('bot@demo-123.iam.gserviceaccount.com');
  });
});

describe('the AWS documentation example is allowed only exactly', () => {
  it('keeps AKIAIOSFODNN7EXAMPLE, the documented example', () => {
    expect(redactText('key AKIAIOSFODNN7EXAMPLE here')).toBe('key AKIAIOSFODNN7EXAMPLE here');
  });

  it.each(['AKIAIOSFODNN7EXAMPLF', 'AKIAEXAMPLEQWERTYUIO', 'ASIAIOSFODNN7EXAMPLE', 'AKIAXXXXEXAMPLEXXXXX'])('redacts %s, which only looks like it', (key) => {
    expect(redactText(`key ${key} here`)).toBe(`key ${REDACTED} here`);
  });

  it('a longer word that merely starts like a key ID is no key', () => {
    expect(redactText('AKIAIOSFODNN7EXAMPLEabc and AKIAQWERTYUIOPASDFGH9')).toBe('AKIAIOSFODNN7EXAMPLEabc and AKIAQWERTYUIOPASDFGH9');
  });
});

describe('what redaction must leave alone', () => {
  for (const { name, text } of HARMLESS) {
    it(`leaves ${name} alone`, () => {
      expect(redactText(text)).toBe(text);
      for (const setting of SETTINGS.slice(2)) expect(redactText(setting.wrap(text))).toBe(setting.wrap(text));
    });
  }

  it('answers the same string when there is nothing to redact (no copy)', () => {
    const text = HARMLESS.map((h) => h.text).join('\n');
    expect(redactText(text)).toBe(text);
  });
});

describe('redaction is stable', () => {
  it('redacting again changes nothing (history read back is redacted the same way)', () => {
    for (const sample of [...TOKEN_SAMPLES, ...CONTEXT_SAMPLES]) {
      for (const setting of SETTINGS) {
        const once = redactText(setting.wrap(sample.secret));
        expect(redactText(once), `${sample.name} ${setting.name}`).toBe(once);
      }
    }
  });
});

describe('secretlint as a checklist', () => {
  /** The preset's rules run on one text, as secretlint would: what they report. */
  async function secretlintFinds(content: string): Promise<string[]> {
    const found: string[] = [];
    const context = {
      createTranslator: () => (id: string, props: Record<string, string>) => ({ id, props }),
      report: (report: { message: { props: Record<string, unknown> } }) => {
        for (const value of Object.values(report.message.props ?? {})) if (typeof value === 'string' && value.length >= 8) found.push(value);
      },
      ignore: () => undefined,
    };
    for (const rule of secretlintRules) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const handlers = (rule as any).create(context, {});
      await handlers.file?.({ content, filePath: undefined, ext: '.txt', contentType: 'text' });
    }
    return found;
  }

  for (const sample of [...TOKEN_SAMPLES, ...CONTEXT_SAMPLES]) {
    const expected = sample.secretlint ?? TOKEN_SAMPLES.includes(sample);
    it(`${sample.name} (${sample.secret.slice(0, 12)}…): secretlint ${expected ? 'finds it' : 'misses it'}, and what it finds is redacted`, async () => {
      const text = `config: ${sample.secret} end`;
      const found = await secretlintFinds(text);
      // A sample secretlint should find and does not is unrealistic (or the preset changed): the list is checked.
      expect(found.length > 0).toBe(expected);
      const redacted = redactText(text);
      for (const secret of found) expect(redacted, `secretlint found ${secret}`).not.toContain(secret);
    });
  }

  it('secretlint misses what Pincer adds: bare AWS key IDs and sk-proj- keys without the marker', async () => {
    const keys = ['AKIAQWERTYUIOPASDFGH', `sk-proj-${fake(48, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')}`];
    for (const key of keys) {
      expect(await secretlintFinds(`key ${key}`)).toEqual([]);
      expect(redactText(`key ${key}`)).toBe(`key ${REDACTED}`);
    }
  });
});

describe('secret names', () => {
  it.each(['OPENAI_API_KEY', 'aws_secret_access_key', 'X-Auth-Token', '_authToken', 'spring.datasource.password', 'DB_PASS', 'basic_auth', 'clientSecret', 'Proxy-Authorization', 'token2'])(
    'names a secret: %s',
    (name) => expect(isSecretName(name)).toBe(true),
  );
  it.each(['tokenizer', 'keyboard', 'monkey', 'author', 'auth_method', 'passage', 'bypass', 'max_tokens_reached_at'.replace('tokens', 'toke'), 'primary_key_column'])(
    'does not name a secret: %s',
    (name) => expect(isSecretName(name)).toBe(false),
  );
});

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

describe('input made to slow redaction down takes one pass', () => {
  // Each would take seconds with a backtracking pattern or a rescan per occurrence; here each is one pass. (No time
  // is asserted: a quadratic scan of these would outlast the test's timeout.)
  const MiB = 1 << 20;
  const fill = (unit: string) => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);
  it.each([
    ['key=', fill('key=')],
    ['token followed by spaces', `token${' '.repeat(MiB)}`],
    ['an unclosed quoted password', `password="${'x'.repeat(MiB)}`],
    ['"eyJ" repeated', fill('eyJ')],
    ['"sk-" repeated', fill('sk-')],
    ['"://" repeated', fill('://')],
    ['"://user:" without an @', fill(`://${'a'.repeat(250)}:`)],
    ['PEM headers without an END', fill('-----BEGIN PRIVATE KEY-----')],
    ['"Bearer " repeated', fill('Bearer ')],
    ['JSON of secret-named keys', fill('{"token": "x1", "api_key": "abc123", ')],
    ['a 1 MiB token run', `sk-${'A1'.repeat(MiB / 2)}`],
  ])('%s', (_name, text) => {
    const redacted = redactText(text);
    expect(typeof redacted).toBe('string');
  });
});

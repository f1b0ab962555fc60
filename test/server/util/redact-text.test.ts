import { rules as secretlintRules } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../../server/util/redact.js';
import { redactText } from '../../../server/util/redact-text/index.js';
import { TOKEN_SHAPES } from '../../../server/util/secret-shapes.js';
import { CONTEXT_SAMPLES, HARMLESS, SETTINGS, TOKEN_SAMPLES, fake, type SecretSample } from '../../helpers/secret-samples.js';

/** Redaction by shape inside strings, and what it must leave alone. */

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

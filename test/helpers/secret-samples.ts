import { random } from './random.js';

/**
 * Realistic fakes of every secret shape the redactor knows, built from a fixed seed (none of them is a working
 * credential), and ordinary text that looks a little like them but must be left alone.
 */
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64URL = `${ALNUM}-_`;
const B64 = `${ALNUM}+/`;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const HEX = '0123456789abcdef';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const next = random(0x5ec2e7);
/** `length` characters drawn from `chars`, with a digit, an upper- and a lower-case letter wherever the set has them. */
export function fake(length: number, chars: string): string {
  for (;;) {
    const text = Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join('');
    const wants = [/\d/, /[A-Z]/, /[a-z]/].filter((kind) => kind.test(chars));
    if (wants.every((kind) => kind.test(text))) return text;
  }
}

const b64url = (text: string) => Buffer.from(text).toString('base64url');
const jwt = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"1234567890","name":"Ann","iat":1716239022}')}.${fake(43, B64URL)}`;
const pemBody = (first: string) => `${first}${fake(60, B64)}\n${Array.from({ length: 6 }, () => fake(64, B64)).join('\n')}\n${fake(20, B64)}==`;
const rsaKey = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody('MIIEow')}\n-----END RSA PRIVATE KEY-----`;
const opensshKey = `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody('b3BlbnNzaC1rZXktdjEAAAA')}\n-----END OPENSSH PRIVATE KEY-----`;

export interface SecretSample {
  /** What it is (the shape's name in server/util/secret-shapes.ts, for the token shapes). */
  name: string;
  /** The whole secret, as it would appear in text. */
  secret: string;
  /** Text that must not survive redaction (the secret part, when `secret` carries context such as a key name). */
  hidden?: string;
  /** What the redacted text must still hold around it ("Authorization: Bearer [REDACTED]"). */
  kept?: string;
  /** Whether secretlint's recommended rules find it: by default the token shapes yes, the others no. */
  secretlint?: boolean;
}

export const TOKEN_SAMPLES: SecretSample[] = [
  { name: 'OpenAI or Anthropic API key', secret: `sk-${fake(20, ALNUM)}T3BlbkFJ${fake(20, ALNUM)}` },
  { name: 'OpenAI or Anthropic API key', secret: `sk-proj-${fake(74, B64URL)}T3BlbkFJ${fake(74, B64URL)}` },
  // No "T3BlbkFJ" marker: secretlint misses these.
  { name: 'OpenAI or Anthropic API key', secret: `sk-proj-${fake(48, B64URL)}`, secretlint: false },
  { name: 'OpenAI or Anthropic API key', secret: `sk-${fake(48, ALNUM)}`, secretlint: false },
  { name: 'OpenAI or Anthropic API key', secret: `sk-ant-api03-${fake(93, B64URL)}AA` },
  { name: 'GitHub token', secret: `ghp_${fake(36, ALNUM)}` },
  { name: 'GitHub token', secret: `gho_${fake(36, ALNUM)}` },
  { name: 'GitHub token', secret: `ghu_${fake(36, ALNUM)}` },
  { name: 'GitHub token', secret: `ghs_${fake(36, ALNUM)}` },
  { name: 'GitHub token', secret: `ghr_${fake(36, ALNUM)}` },
  { name: 'GitHub fine-grained token', secret: `github_pat_${fake(22, ALNUM)}_${fake(59, ALNUM)}` },
  { name: 'GitLab token', secret: `glpat-${fake(20, B64URL)}` },
  { name: 'Slack token', secret: `xoxb-${fake(12, '0123456789')}-${fake(13, '0123456789')}-${fake(24, ALNUM)}` },
  { name: 'Slack token', secret: `xoxp-${fake(12, '0123456789')}-${fake(12, '0123456789')}-${fake(13, '0123456789')}-${fake(32, HEX)}` },
  { name: 'AWS access key ID', secret: `AKIA${fake(16, BASE32)}`, secretlint: false },
  { name: 'AWS access key ID', secret: `ASIA${fake(16, BASE32)}`, secretlint: false },
  { name: 'Google API key', secret: `AIza${fake(35, B64URL)}`, secretlint: false },
  { name: 'Stripe key', secret: `sk_live_${fake(24, ALNUM)}` },
  { name: 'Stripe key', secret: `rk_live_${fake(24, ALNUM)}` },
  { name: 'Stripe key', secret: `sk_test_${fake(24, ALNUM)}` },
  { name: 'Stripe webhook secret', secret: `whsec_${fake(32, ALNUM)}`, secretlint: false },
  { name: 'npm token', secret: `npm_${fake(36, ALNUM)}` },
  { name: 'Pincer client token', secret: `pk_${fake(43, B64URL)}`, secretlint: false },
  { name: 'SendGrid key', secret: `SG.${fake(22, B64URL)}.${fake(43, B64URL)}` },
  { name: 'Shopify token', secret: `shpat_${fake(32, 'abcdef0123456789')}` },
  { name: 'Grafana token', secret: `glsa_${fake(32, ALNUM)}_${fake(8, 'abcdef0123456789')}` },
  { name: 'Hugging Face token', secret: `hf_${fake(34, LETTERS)}` },
  { name: 'Groq key', secret: `gsk_${fake(52, ALNUM)}` },
  { name: 'Linear key', secret: `lin_api_${fake(40, ALNUM)}` },
  { name: 'Notion token', secret: `ntn_${fake(11, '0123456789')}${fake(35, ALNUM)}` },
  { name: '1Password service account token', secret: `ops_${b64url(`{"signInAddress":"my.1password.com","userAuth":{"method":"SRPg-4096","alg":"PBES2g-HS256","iterations":650000,"salt":"${fake(22, B64URL)}"},"email":"${fake(12, 'abcdefghij')}@1passwordserviceaccounts.com","srpX":"${fake(64, HEX)}","muk":{"alg":"A256GCM"}}`).replace(/[-_]/g, 'A')}`, secretlint: false },
  { name: 'HashiCorp Vault token', secret: `hvs.${fake(95, B64URL)}` },
  { name: 'Vercel token', secret: `vcp_${fake(24, ALNUM)}` },
  { name: 'Databricks token', secret: `dapi${fake(32, HEX)}` },
  { name: 'Docker token', secret: `dckr_pat_${fake(27, B64URL)}` },
  { name: 'Figma token', secret: `figd_${fake(40, B64URL)}` },
  { name: 'Cloudflare token', secret: `cfut_${fake(40, ALNUM)}${fake(8, HEX)}` },
  { name: 'Tailscale key', secret: `tskey-auth-${fake(12, ALNUM)}-${fake(32, ALNUM)}` },
  { name: 'DigitalOcean token', secret: `dop_v1_${fake(64, HEX)}`, secretlint: false },
  { name: 'age secret key', secret: `AGE-SECRET-KEY-1${fake(58, 'ACDEFGHJKLMNPQRSTUVWXYZ023456789')}`, secretlint: false },
];

/** Shapes that need their surroundings: each `secret` is the text as it appears, `hidden` the part that must go. */
export const CONTEXT_SAMPLES: SecretSample[] = [
  { name: 'JWT', secret: jwt },
  { name: 'PEM RSA private key', secretlint: true, secret: rsaKey, hidden: rsaKey.split('\n')[1]!, kept: '-----BEGIN RSA PRIVATE KEY-----' },
  { name: 'PEM OpenSSH private key', secretlint: true, secret: opensshKey, hidden: opensshKey.split('\n')[2]!, kept: '-----END OPENSSH PRIVATE KEY-----' },
  ((token) => ({ name: 'Authorization: Bearer', secret: `Authorization: Bearer ${token}`, hidden: token, kept: 'Authorization: Bearer [REDACTED]' }))(fake(40, B64URL)),
  ((token) => ({ name: 'Bearer token alone', secret: `Bearer ${token}`, hidden: token, kept: 'Bearer [REDACTED]' }))(`${fake(30, ALNUM)}.${fake(12, ALNUM)}`),
  ((pair) => ({ name: 'Authorization: Basic', secret: `Authorization: Basic ${pair}`, hidden: pair, kept: 'Authorization: Basic [REDACTED]' }))(Buffer.from(`deploy:${fake(16, ALNUM)}`).toString('base64')),
  ((token) => ({ name: 'Authorization: token (GitHub style)', secret: `authorization: token ${token}`, hidden: token, kept: 'authorization: token [REDACTED]' }))(fake(40, HEX)),
  ((key) => ({ name: 'X-API-Key header', secret: `X-API-Key: ${key}`, hidden: key, kept: 'X-API-Key: [REDACTED]' }))(fake(32, HEX)),
  ((key) => ({ name: 'OPENAI_API_KEY=…', secret: `OPENAI_API_KEY=${key}`, hidden: key, kept: 'OPENAI_API_KEY=[REDACTED]' }))(`sk-proj-${fake(48, B64URL)}`),
  ((key) => ({ name: 'env line of an unknown format', secret: `ACME_SECRET_KEY=${key}`, hidden: key, kept: 'ACME_SECRET_KEY=[REDACTED]' }))(fake(30, ALNUM)),
  ((secret) => ({ name: 'AWS secret access key (credentials file)', secretlint: true, secret: `aws_secret_access_key = ${secret}`, hidden: secret, kept: 'aws_secret_access_key = [REDACTED]' }))(fake(40, B64)),
  ((secret) => ({ name: 'AWS secret access key (env)', secretlint: true, secret: `AWS_SECRET_ACCESS_KEY=${secret}`, hidden: secret, kept: 'AWS_SECRET_ACCESS_KEY=[REDACTED]' }))(fake(40, B64)),
  ((password) => ({ name: 'password: … (YAML)', secret: `password: ${password}`, hidden: password, kept: 'password: [REDACTED]' }))(`${fake(10, LETTERS)}!7`),
  ((password) => ({ name: '"password": "…" (JSON)', secret: `"password": "${password}"`, hidden: password, kept: '"password": "[REDACTED]"' }))(`${fake(12, ALNUM)} x`),
  ((password) => ({ name: 'password of digits', secret: `DB_PASSWORD=${password}`, hidden: password, kept: 'DB_PASSWORD=[REDACTED]' }))(fake(9, '0123456789')),
  ((password) => ({ name: '--password=…', secret: `--password=${password}`, hidden: password, kept: '--password=[REDACTED]' }))(fake(14, ALNUM)),
  ((token) => ({ name: '--token …', secret: `--token ${token}`, hidden: token, kept: '--token [REDACTED]' }))(fake(24, ALNUM)),
  ((token) => ({ name: 'access_token in a query string', secret: `https://api.example.com/v1/me?access_token=${token}&fields=id`, hidden: token, kept: 'access_token=[REDACTED]&fields=id' }))(fake(32, ALNUM)),
  ((password) => ({ name: 'URL with a password', secretlint: true, secret: `https://ann:${password}@git.example.com/team/repo.git`, hidden: password, kept: 'https://ann:[REDACTED]@git.example.com' }))(fake(16, ALNUM)),
  ((password) => ({ name: 'database URL with a password', secretlint: true, secret: `postgres://app:${password}@db.internal:5432/main`, hidden: password, kept: 'postgres://app:[REDACTED]@db.internal' }))(fake(18, ALNUM)),
  ((token) => ({ name: 'GitHub token as URL user (x-oauth-basic)', secretlint: true, secret: `https://${token}:x-oauth-basic@github.com/ann/repo.git`, hidden: token, kept: '[REDACTED]:x-oauth-basic@github.com' }))(fake(40, HEX)),
  ((password) => ({ name: 'curl -u user:password', secret: `curl -u admin:${password} https://ci.example.com/api`, hidden: password, kept: '-u admin:[REDACTED]' }))(fake(14, ALNUM)),
  ((path) => ({ name: 'Slack webhook', secretlint: true, secret: `https://hooks.slack.com/services/${path}`, hidden: path, kept: 'https://hooks.slack.com/services/[REDACTED]' }))(`T${fake(8, ALNUM.slice(0, 36))}/B${fake(10, ALNUM.slice(0, 36))}/${fake(24, ALNUM)}`),
  ((path) => ({ name: 'Discord webhook', secret: `https://discord.com/api/webhooks/${path}`, hidden: path, kept: 'https://discord.com/api/webhooks/[REDACTED]' }))(`${fake(18, '0123456789')}/${fake(68, B64URL)}`),
  ((token) => ({ name: '.npmrc _authToken', secret: `//npm.example.test/:_authToken=${token}`, hidden: token, kept: ':_authToken=[REDACTED]' }))(fake(36, HEX)),
  ((cookie) => ({ name: 'Cookie header', secret: `Cookie: _ga=GA1.1.42; sessionid=${cookie}; theme=dark`, hidden: cookie, kept: 'Cookie: [REDACTED]' }))(fake(32, ALNUM)),
  ((code) => ({ name: 'Pincer login link', secret: `http://127.0.0.1:7800/auth?code=${code}`, hidden: code, kept: '/auth?code=[REDACTED]' }))(`${fake(24, B64URL)}.${fake(8, HEX)}.${fake(43, B64URL)}`),
  ((session) => ({ name: 'Pincer owner session cookie', secret: `pincer_session=${session}`, hidden: session, kept: 'pincer_session=[REDACTED]' }))(fake(43, B64URL)),
];

/** Where a secret is put for the tests: inside prose, in a command line, inside JSON text inside a string. */
export const SETTINGS: { name: string; wrap: (secret: string) => string }[] = [
  { name: 'in prose', wrap: (s) => `Here is what I found in the notes: ${s} — use it carefully.` },
  { name: 'in a command line', wrap: (s) => `cd /srv/app && env DEBUG=1 ./deploy.sh --verbose "${s}" | tee -a deploy.log` },
  { name: 'in JSON text in a string', wrap: (s) => JSON.stringify({ config: { note: `value ${s} end`, list: [1, 2] } }) },
  { name: 'in JSON text in JSON text', wrap: (s) => JSON.stringify(JSON.stringify({ env: `line1\n${s}\nline3` })) },
];

/** Ordinary text the redactor must leave exactly as it is. */
export const HARMLESS: { name: string; text: string }[] = [
  { name: 'a UUID', text: 'request 3f2b9c4e-8a1d-4f6b-9e2c-7d5a1b3c9e0f finished' },
  { name: 'a git SHA (40 hex)', text: 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)' },
  { name: 'a sha256 hash', text: 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt' },
  { name: 'a base64 image in a data: URL', text: `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg${fake(2000, B64)}==">` },
  { name: 'an npm integrity string', text: '"integrity": "sha512-Ln6uUoNn0gAwn4PeqtS3ahzl/UU9DZrpI5FWSv+HmTa3h4IX4RwjSbH3lTXMFa+A3AbjyLmAtA8dDMIX9NdKWQ=="' },
  { name: 'ordinary long words', text: 'supercalifragilisticexpialidocious internationalization counterrevolutionaries' },
  { name: 'file paths', text: '/home/ann/.ssh/known_hosts /etc/ssl/certs/ca-certificates.crt C:\\Users\\ann\\AppData\\Roaming\\secrets.txt ~/projects/token-bucket/src/keys.ts' },
  { name: 'URLs without credentials', text: 'see https://github.com/ann/repo/blob/main/README.md#install and https://example.com:8443/path?q=1&page=2 and git@github.com:ann/repo.git' },
  { name: 'max_tokens and other counts', text: '{"model": "gpt-4o", "max_tokens": 256, "prompt_tokens": 1200, "token_count": 12, "session_timeout": 30}' },
  { name: '"password" in prose without a value', text: 'To reset your password, open Settings. Your password must be long. The token bucket refills.' },
  { name: 'sk- in ordinary words', text: 'pip install scikit-learn; import sklearn; task-1234567890abcdefghijklmnop; the desk-lamp-with-a-long-name' },
  { name: 'CSS classes', text: '<div class="sk-fading-circle-container sk-chase-dot-animation btn-primary key-visual">' },
  { name: "Pincer's own call ids", text: 'c_m3x9k2ab3f9e2c1d c_lz8q0w1e7a6b5c4d cv_m3x9k2ab3f9e2c1d a_3f9e2c1d7a6b' },
  { name: 'AWS documentation example key ID', text: 'aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE' },
  { name: 'code that reads a secret', text: 'const token = getToken(); const secret = config.secret; const key = keys[0]; headers.Authorization = `Bearer ${token}`;' },
  { name: 'environment references', text: 'export GITHUB_TOKEN=$GH_TOKEN; curl -H "Authorization: Bearer $API_TOKEN" -H "X-Api-Key: ${KEY}" https://x.example' },
  { name: 'Bearer and Basic in prose', text: 'Bearer authentication is common. Basic usage: run the tool. The bearer of this note.' },
  { name: 'a JWT-like word that is not one', text: 'eyJustKidding.notReally.aToken and eyeball' },
  { name: 'secret-looking words as keys without values', text: 'password.txt tokenizer=bpe keyboard=us author: Ann passage: two auth_method: basic' },
  { name: 'a PEM certificate (public)', text: '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----' },
  { name: 'booleans and nulls under secret names', text: 'use_token: true, password: null, api_key: none' },
  { name: 'a docker user and group', text: 'docker run -u 1000:1000 -p 8080:80 image' },
];

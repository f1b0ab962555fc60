/**
 * What redaction costs on big strings (a diagnosis aid next to `npm run bench`): ms per MiB of redactText on
 * ordinary content (source code, prose, base64) and on input made to slow it down, each beside JSON.stringify of the
 * same string — the serialization every recorded call pays anyway — so the ratio holds on a busy machine too.
 *
 *   npm run prebench && node dist/bench/redaction.js [--rounds N]
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { redactText } from '../server/util/redact-text/index.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string' } } });
const ROUNDS = Math.max(1, Number(values.rounds ?? 5));
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MiB = 1 << 20;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}
function markdown(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.md')).sort().map((name) => join(dir, name));
}
/** One MiB of `text` repeated, as one flat string (as JSON.parse makes them). */
const mib = (text: string) => Buffer.from(text.repeat(Math.ceil(MiB / text.length)).slice(0, MiB)).toString();

const CASES: [string, string][] = [
  ['source code', mib(sources(join(ROOT, 'server')).map((f) => readFileSync(f, 'utf8')).join('\n'))],
  // The README and the docs/ pages: the project's own prose, with its code spans and tables.
  ['prose (README, docs)', mib([join(ROOT, 'README.md'), ...markdown(join(ROOT, 'docs'))].map((f) => readFileSync(f, 'utf8')).join('\n'))],
  ['base64', mib(randomBytes(MiB).toString('base64'))],
  ['made: key= repeated', mib('key=')],
  ['made: secret JSON pairs', mib('{"token": "x1", "api_key": "abc123", ')],
  ['made: "token " repeated', mib('token ')],
  ['made: "://" repeated', mib('://')],
  ['made: "Bearer " repeated', mib('Bearer ')],
  ['made: PEM headers', mib('-----BEGIN PRIVATE KEY-----')],
];

function time(run: () => unknown): number {
  for (let i = 0; i < 2; i++) run();
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) run();
  return (performance.now() - t0) / ROUNDS;
}

console.log(`redactText, ${ROUNDS} rounds of 1 MiB each`);
console.log(`${'input'.padEnd(26)}${'ms/MiB'.padStart(9)}${'stringify'.padStart(11)}${'ratio'.padStart(8)}`);
for (const [name, text] of CASES) {
  const redact = time(() => redactText(text));
  const stringify = time(() => JSON.stringify(text));
  console.log(`${name.padEnd(26)}${redact.toFixed(1).padStart(9)}${stringify.toFixed(1).padStart(11)}${(redact / stringify).toFixed(1).padStart(8)}`);
}

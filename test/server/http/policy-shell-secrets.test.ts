import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * Recursive reads of secrets inside a root, as a client meets them through POST /policy/check: the gateway's root
 * holds `.env`, `proj/.aws/credentials` and `proj/.ssh/id_ed25519`. Reading one of them directly asks; so must every
 * command that reads them by reading a whole folder, naming the file; the same commands over a folder without
 * secrets stay allowed.
 */

type Verdict = 'allow' | 'ask' | 'deny';

let gw: TestGateway;
let root: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

async function check(command: string, cwd?: string): Promise<{ decision: Verdict; rule: string; reason: string }> {
  const res = await gw.api('/policy/check', { method: 'POST', json: { name: 'run_shell', arguments: { command, ...(cwd && { cwd }) } } });
  expect(res.status).toBe(200);
  return readJson(res);
}

beforeAll(async () => {
  gw = await startGateway();
  root = realpathSync(gw.workspace);
  write(join(root, '.env'), 'SECRET=hunter2\n');
  write(join(root, 'proj/.aws/credentials'), '[default]\naws_secret_access_key=SECRET\n');
  write(join(root, 'proj/.ssh/id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET\n');
  mkdirSync(join(root, 'empty'));
  write(join(root, 'clean/src/app.ts'), '// TODO\n');
  write(join(root, 'clean/docs/.notes.md'), 'notes\n');
  mkdirSync(join(root, 'clean/empty'));
});

afterAll(async () => {
  await gw?.close();
});

const SECRET_FILE = /\((?:\.env|proj\/\.aws\/credentials|proj\/\.ssh\/id_ed25519)\)/;

describe('POST /policy/check: recursive reads of a root that holds secrets', () => {
  it.each(['cat .env', 'head proj/.aws/*'])('the direct read asks: %s', async (command) => {
    expect(await check(command)).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
  });

  it.each(['grep -r SECRET .', 'grep -ra . proj', 'rg -uu .', 'git grep --no-index -e SECRET', 'diff -rN proj empty'])(
    'asks, naming the secret file: %s',
    async (command) => {
      const verdict = await check(command);
      expect(verdict.decision, verdict.reason).toBe('ask');
      expect(verdict.rule).toBe('shell:secret-read');
      expect(verdict.reason).toMatch(SECRET_FILE);
    },
  );

  it.each(['grep -r SECRET .', 'grep -ra . src', 'rg -uu .', 'git grep --no-index -e SECRET', 'diff -rN src empty'])(
    'stays allowed over a folder without secrets: %s',
    async (command) => {
      const verdict = await check(command, join(root, 'clean'));
      expect(verdict.decision, verdict.reason).toBe('allow');
      expect(verdict.rule).toBe('shell:read-only');
    },
  );
});

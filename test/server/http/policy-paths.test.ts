import { mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/**
 * Look-alike paths and escaping patterns as a client meets them: through POST /policy/check and through real calls
 * on a real gateway. Every refusal is checked for leaks: nothing from outside the root (or the data directory) in
 * the response or in the call log.
 */

const SECRET = 'PINCER-LOOKALIKE-SECRET-51c2e8';
/** Inside the root, in a real folder named "．．": harmless here, but it must not be served under a look-alike path. */
const DECOY = 'PINCER-LOOKALIKE-DECOY-0b7d44';
const FW_DOT = '\uff0e';
const FW_SLASH = '\uff0f';

interface Verdict {
  decision: string;
  rule: string;
  reason: string;
}

describe('look-alike paths and escaping patterns through HTTP', () => {
  let gw: TestGateway;
  let root: string;
  let outside: string;
  /** The outside folder's name, as a sibling of the root: `../<outsideName>/secret.txt` reaches the secret. */
  let outsideName: string;

  const post = async (path: string, json: unknown) => {
    const res = await gw.api(path, { method: 'POST', json });
    return { status: res.status, text: await res.text() };
  };
  const check = async (name: string, args: Record<string, unknown>): Promise<Verdict> => {
    const { status, text } = await post('/policy/check', { name, arguments: args });
    expect(status, text).toBe(200);
    return JSON.parse(text) as Verdict;
  };
  /** A real call the policy must refuse: 403 naming the rule, recorded as denied, nothing leaked. */
  const refusedCall = async (tool: string, args: Record<string, unknown>, rule: string) => {
    const { status, text } = await post(`/tools/${tool}/execute`, args);
    expect(status, text).toBe(403);
    const body = JSON.parse(text) as { error: { name: string; message: string; details: { rule?: string } }; call_id: string };
    expect(body.error).toMatchObject({ name: 'POLICY_DENIED', details: { rule } });
    for (const leak of [SECRET, DECOY, gw.token]) expect(text).not.toContain(leak);
    const record = await (await gw.api(`/calls/${body.call_id}`)).text();
    expect(JSON.parse(record)).toMatchObject({ status: 'denied', decision: 'deny', rule });
    for (const leak of [SECRET, DECOY, gw.token]) expect(record).not.toContain(leak);
  };

  beforeAll(async () => {
    gw = await startGateway({ approvalTimeoutS: 0.25 });
    root = realpathSync(gw.workspace);
    outside = realpathSync(tempDir('pincer-outside-'));
    outsideName = basename(outside);
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    // A real folder "．．/<outsideName>" inside the root: a normaliser would turn its path into ../<outsideName>.
    mkdirSync(join(root, `${FW_DOT}${FW_DOT}`, outsideName), { recursive: true });
    writeFileSync(join(root, `${FW_DOT}${FW_DOT}`, outsideName, 'secret.txt'), DECOY);
    writeFileSync(join(root, 'notes.md'), 'hello');
    mkdirSync(join(root, 'src', 'lib'), { recursive: true });
    writeFileSync(join(root, 'src', 'lib', 'index.ts'), 'export {};');
    writeFileSync(join(root, 'a.txt'), 'a');
    writeFileSync(join(root, 'b.txt'), 'b');
  });
  afterAll(async () => {
    await gw.close();
    rmSync(outside, { recursive: true, force: true });
  });

  describe('look-alike paths are denied with path:lookalike', () => {
    const attacks: Array<[name: string, tool: string, args: () => Record<string, unknown>]> = [
      ['file_read ．．／．．／etc/passwd', 'file_read', () => ({ path: `${FW_DOT}${FW_DOT}${FW_SLASH}${FW_DOT}${FW_DOT}${FW_SLASH}etc/passwd` })],
      ['file_read ..／<outside>／secret.txt (fullwidth slashes)', 'file_read', () => ({ path: `..${FW_SLASH}${outsideName}${FW_SLASH}secret.txt` })],
      ['file_read ．．/<outside>/secret.txt (a real folder inside the root)', 'file_read', () => ({ path: `${FW_DOT}${FW_DOT}/${outsideName}/secret.txt` })],
      ['file_read with U+2215 division slashes', 'file_read', () => ({ path: `..\u2215${outsideName}\u2215secret.txt` })],
      ['file_read with U+2216 set-minus backslashes', 'file_read', () => ({ path: `..\u2216${outsideName}\u2216secret.txt` })],
      ['file_read fullwidth ～/x', 'file_read', () => ({ path: '\uff5e/.ssh/id_rsa' })],
      ['file_read a look-alike into the data directory', 'file_read', () => ({ path: `${FW_DOT}${FW_DOT}${FW_SLASH}${basename(gw.dataDir)}${FW_SLASH}token` })],
      ['file_read an absolute look-alike from inside the root', 'file_read', () => ({ path: `${root}/${FW_DOT}${FW_DOT}/${outsideName}/secret.txt` })],
      ['file_list ．．/<outside>', 'file_list', () => ({ path: `${FW_DOT}${FW_DOT}/${outsideName}` })],
      ['file_write ．．／<outside>／new.txt', 'file_write', () => ({ path: `${FW_DOT}${FW_DOT}${FW_SLASH}${outsideName}${FW_SLASH}new.txt`, content: 'x' })],
      ['file_delete ．．/<outside>/secret.txt', 'file_delete', () => ({ path: `${FW_DOT}${FW_DOT}/${outsideName}/secret.txt` })],
    ];

    it.each(attacks)('policy check denies %s', async (_name, tool, args) => {
      const verdict = await check(tool, args());
      expect(verdict).toMatchObject({ decision: 'deny', rule: 'path:lookalike' });
      expect(verdict.reason).toMatch(/look like path syntax/);
      for (const leak of [SECRET, DECOY]) expect(verdict.reason).not.toContain(leak);
    });

    it.each(attacks)('real call is refused and leaks nothing: %s', async (_name, tool, args) => {
      await refusedCall(tool, args(), 'path:lookalike');
    });

    it('says a look-alike into the data directory would reach it', async () => {
      const verdict = await check('file_read', { path: `${FW_DOT}${FW_DOT}${FW_SLASH}${basename(gw.dataDir)}${FW_SLASH}token` });
      expect(verdict.reason).toMatch(/reaches Pincer's own data folder/);
    });

    it('the refused write and delete changed nothing on disk', () => {
      expect(readdirSync(outside)).toEqual(['secret.txt']);
      expect(readdirSync(join(root, `${FW_DOT}${FW_DOT}`, outsideName))).toEqual(['secret.txt']);
    });

    it('a look-alike path that stays inside the root is allowed and works', async () => {
      expect(await check('file_read', { path: `src${FW_SLASH}lib${FW_SLASH}index.ts` })).toMatchObject({ decision: 'allow', rule: 'path:inside-root' });
      const { text } = await post('/tools/file_write/execute', { path: `\uff41${FW_DOT}\uff42.txt`, content: 'fullwidth name' });
      expect(JSON.parse(text)).toMatchObject({ success: true });
      const read = JSON.parse((await post('/tools/file_read/execute', { path: `\uff41${FW_DOT}\uff42.txt` })).text);
      expect(read).toMatchObject({ success: true, result: { content: 'fullwidth name' } });
    });
  });

  describe('file_list patterns that leave the listed folder are denied with path:pattern-escape', () => {
    const patterns: Array<[string]> = [
      ['../*'],
      ['a/../../*'],
      ['/etc/*'],
      ['~/*'],
      ['C:\\*'],
      ['\\\\server\\share\\*'],
      [`${FW_DOT}${FW_DOT}/*`],
      ['{..,src}/*'],
    ];

    it.each(patterns)('policy check denies the pattern %s, saying what is allowed', async (pattern) => {
      const verdict = await check('file_list', { path: '.', recursive: true, pattern });
      expect(verdict).toMatchObject({ decision: 'deny', rule: 'path:pattern-escape' });
      expect(verdict.reason).toMatch(/relative to that folder/);
      expect(verdict.reason).toContain('"src/**/*.ts"');
    });

    it.each(patterns)('real file_list call with the pattern %s is refused and lists nothing', async (pattern) => {
      await refusedCall('file_list', { path: '.', recursive: true, pattern }, 'path:pattern-escape');
    });

    it.each([
      ['*.md', ['notes.md']],
      ['src/**/*.ts', ['src/lib/index.ts']],
      ['{a,b}.txt', ['a.txt', 'b.txt']],
    ])('the harmless pattern %s is allowed and lists only entries inside the root', async (pattern, expected) => {
      expect(await check('file_list', { path: '.', recursive: true, pattern })).toMatchObject({ decision: 'allow' });
      const { status, text } = await post('/tools/file_list/execute', { path: '.', recursive: true, pattern });
      expect(status, text).toBe(200);
      const body = JSON.parse(text) as { success: boolean; result: { root: string; entries: Array<{ path: string }> } };
      expect(body.success).toBe(true);
      expect(body.result.root).toBe(root);
      expect(body.result.entries.map((e) => e.path)).toEqual(expected);
    });
  });

  it('a full recursive listing returns only entries inside the root, and nothing from outside or the data directory', async () => {
    const { text } = await post('/tools/file_list/execute', { path: '.', recursive: true, include_hidden: true });
    const body = JSON.parse(text) as { success: boolean; result: { entries: Array<{ path: string; name: string }> } };
    expect(body.success).toBe(true);
    for (const entry of body.result.entries) {
      expect(entry.path.split('/')).not.toContain('..');
      const real = join(realpathSync(join(root, entry.path, '..')), entry.name);
      expect(real.startsWith(`${root}/`), entry.path).toBe(true);
    }
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(gw.token);
  });

  it('the call log holds no secret after all the attempts', async () => {
    const history = await (await gw.api('/calls?limit=500')).text();
    expect(history).toContain('path:lookalike');
    expect(history).toContain('path:pattern-escape');
    for (const leak of [SECRET, DECOY, gw.token]) expect(history).not.toContain(leak);
  });
});

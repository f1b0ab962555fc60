import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ADDONS, guardAddons, probeAddon, type Addon } from '../../scripts/native-guard.mjs';
import { tempDir } from '../helpers/gateway.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('the pretest native guard', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('passes on a healthy tree in one line, without rebuilding anything', async () => {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'scripts/native-guard.mjs')], { cwd: ROOT, timeout: 60_000 });
    expect(stdout).toBe(`native-guard: better-sqlite3 and node-pty load in Node ${process.version}.\n`);
    expect(stderr).toBe('');
  });

  it('checks both addons for real: better-sqlite3 opens :memory: and node-pty loads', () => {
    expect(ADDONS.map((a) => a.name)).toEqual(['better-sqlite3', 'node-pty']);
    for (const addon of ADDONS) expect(probeAddon(addon, ROOT)).toBeUndefined();
  });

  /** A project whose one package fails to load until its install script (what `npm rebuild` runs) has run. */
  function brokenProject(installScript: string): { root: string; addon: Addon } {
    const root = tempDir('pincer-guard-');
    made.push(root);
    const pkg = join(root, 'node_modules', 'fake-addon');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'guarded', version: '1.0.0', private: true, dependencies: { 'fake-addon': '1.0.0' } }));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'fake-addon', version: '1.0.0', main: 'index.js', scripts: { install: installScript } }));
    writeFileSync(join(pkg, 'index.js'), "if (!require('fs').existsSync(__dirname + '/built')) throw new Error('Could not locate the bindings file'); module.exports = 1;\n");
    return { root, addon: { name: 'fake-addon', probe: "require('fake-addon')" } };
  }

  it('rebuilds an addon that does not load with npm rebuild, checks it again and says what it did', () => {
    const { root, addon } = brokenProject('node -e "require(\'fs\').writeFileSync(\'built\', \'\')"');
    expect(probeAddon(addon, root)).toMatch(/Could not locate the bindings file/);
    const lines: string[] = [];
    expect(guardAddons({ root, addons: [addon], log: (l) => lines.push(l) })).toBe(0);
    expect(lines[0]).toMatch(/^native-guard: fake-addon does not load in Node v[\d.]+ \(Error: Could not locate the bindings file\); running "npm rebuild fake-addon"…$/);
    expect(lines).toContain('native-guard: rebuilt fake-addon; it loads now.');
    expect(probeAddon(addon, root)).toBeUndefined();
  });

  it('fails, saying so, when the rebuild does not help', () => {
    const { root, addon } = brokenProject('node -e "process.exit(1)"');
    const lines: string[] = [];
    expect(guardAddons({ root, addons: [addon], log: (l) => lines.push(l) })).toBe(1);
    expect(lines.at(-1)).toMatch(/^native-guard: fake-addon still does not load \(npm rebuild failed\): .*Could not locate the bindings file/);
  });
});

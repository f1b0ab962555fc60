import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathGuard } from '../../../server/security/path-guard.js';
import { createFileDeleteTool } from '../../../server/tools/builtin/file-delete.js';
import { createFileWriteTool } from '../../../server/tools/builtin/file-write.js';

/**
 * Pincer's own code (its package, its bundled plugins) inside a root: readable, never writable or deletable; and a
 * guard with no root at all. A fake package in a temp folder stands for the real one, so nothing real is at stake.
 */

let base: string;
let home: string;
let pkg: string;
let bundled: string;
let data: string;
let guard: PathGuard;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-paths-own-')));
  home = join(base, 'home');
  pkg = join(home, 'src', 'pincer');
  bundled = join(pkg, 'plugins');
  data = join(home, '.pincer');
  for (const dir of [join(bundled, 'investment'), join(pkg, 'server'), data, join(home, 'notes')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(bundled, 'investment', 'index.js'), 'export default {};');
  writeFileSync(join(pkg, 'server', 'cli.js'), '// the code');
  writeFileSync(join(data, 'token'), 'secret');
  symlinkSync(join(bundled, 'investment'), join(home, 'notes', 'link-to-plugin'));
  guard = PathGuard.create({ roots: [home], protectedDirs: [data], readOnlyDirs: [pkg, bundled] });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const rule = async (path: string, access: 'read' | 'write' | 'delete' | 'list') => (await guard.check(path, access)).decision.rule;

describe("Pincer's own code inside a root", () => {
  it('a write into a bundled plugin is refused, by absolute and relative path', async () => {
    expect(await rule(join(bundled, 'investment', 'index.js'), 'write')).toBe('path:pincer-code');
    expect(await rule('src/pincer/plugins/investment/index.js', 'write')).toBe('path:pincer-code');
  });

  it("a write into Pincer's own server code is refused, a new file included", async () => {
    expect(await rule(join(pkg, 'server', 'cli.js'), 'write')).toBe('path:pincer-code');
    expect(await rule(join(pkg, 'server', 'new-file.js'), 'write')).toBe('path:pincer-code');
    expect(await rule(join(pkg, 'package.json'), 'write')).toBe('path:pincer-code');
  });

  it('a write through a symlink inside the root that leads into the package is refused', async () => {
    expect(await rule('notes/link-to-plugin/index.js', 'write')).toBe('path:pincer-code');
  });

  it('a look-alike spelling that folds into the package is refused', async () => {
    expect(await rule('src／pincer／plugins／investment／index.js', 'write')).toBe('path:lookalike');
  });

  it('a delete inside the package, of the package, or of a folder holding it is refused', async () => {
    expect(await rule(join(bundled, 'investment', 'index.js'), 'delete')).toBe('path:pincer-code');
    expect(await rule(bundled, 'delete')).toBe('path:pincer-code');
    expect(await rule(pkg, 'delete')).toBe('path:pincer-code');
    expect(await rule(join(home, 'src'), 'delete')).toBe('path:pincer-code');
  });

  it('reading and listing it stays allowed, and the rest of the root is untouched', async () => {
    expect(await rule(join(pkg, 'server', 'cli.js'), 'read')).toBe('path:inside-root');
    expect(await rule(bundled, 'list')).toBe('path:inside-root');
    expect(await rule('notes/todo.md', 'write')).toBe('path:inside-root');
    expect(await rule('notes', 'delete')).toBe('path:delete');
  });

  it('the data folder inside the same root stays refused for everything, reads included', async () => {
    expect(await rule(join(data, 'token'), 'read')).toBe('path:pincer-data');
    expect(await rule(join(data, 'token'), 'write')).toBe('path:pincer-data');
  });

  it('file_write and file_delete refuse at run time too (the handler re-checks), and the file is unchanged', async () => {
    const write = createFileWriteTool(guard);
    const remove = createFileDeleteTool(guard);
    const target = join(bundled, 'investment', 'index.js');
    const ctx = { signal: new AbortController().signal, callId: 'c_test', client: 'default' };
    await expect(write.handler({ path: target, content: 'import("child_process")' }, ctx)).rejects.toMatchObject({
      errorName: 'PATH_NOT_ALLOWED',
      details: { rule: 'path:pincer-code' },
    });
    await expect(remove.handler({ path: target }, ctx)).rejects.toMatchObject({ errorName: 'PATH_NOT_ALLOWED', details: { rule: 'path:pincer-code' } });
    expect(readFileSync(target, 'utf8')).toBe('export default {};');
  });
});

describe('roots that are Pincer\'s own folders', () => {
  it('a root at or inside the package, the bundled plugins or the data folder is refused, naming it', () => {
    for (const root of [pkg, bundled, join(bundled, 'investment'), join(pkg, 'server'), data]) {
      expect(() => guard.checkRoots([root]), root).toThrow(/Pincer's own (code|data folder)/);
    }
  });

  it('a root that holds them is accepted', () => {
    expect(guard.checkRoots([home, join(home, 'src')])).toEqual([home, join(home, 'src')]);
  });
});

describe('no roots', () => {
  const empty = () => PathGuard.create({ roots: [], protectedDirs: [data], readOnlyDirs: [pkg] });

  it('is a guard of its own, not an error', () => {
    expect(empty().roots).toEqual([]);
  });

  it('every path is refused with path:no-roots, saying how the owner shares a folder', async () => {
    const none = empty();
    for (const [path, access] of [
      ['notes.txt', 'read'],
      ['.', 'list'],
      [join(home, 'notes', 'todo.md'), 'write'],
      ['~/notes', 'read'],
      [`file://${join(home, 'notes')}`, 'list'],
    ] as const) {
      const { decision } = await none.check(path, access);
      expect(decision.rule, path).toBe('path:no-roots');
      expect(decision.decision).toBe('deny');
      expect(decision.reason).toContain('pincer roots add DIR');
      expect(decision.reason).toContain('Settings');
    }
  });

  it('the data folder and the package keep their own rules', async () => {
    const none = empty();
    expect((await none.check(join(data, 'token'), 'read')).decision.rule).toBe('path:pincer-data');
    expect((await none.check(join(pkg, 'server', 'cli.js'), 'write')).decision.rule).toBe('path:pincer-code');
  });

  it('roots can be put in place later', async () => {
    const none = empty();
    none.replaceRoots(none.checkRoots([join(home, 'notes')]));
    expect((await none.check('todo.md', 'write')).decision.rule).toBe('path:inside-root');
  });
});

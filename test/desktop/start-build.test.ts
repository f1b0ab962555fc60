import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPlan, buildWhatChanged } from '../../scripts/start/build.mjs';
import { tempDir } from '../helpers/gateway.js';
import { PACKAGE_ROOT } from '../../server/version.js';

/**
 * `npm start` builds only what changed: a small package with the checkout's layout, compiled by the real
 * TypeScript compiler (the checkout's), whose outputs' and sources' times decide what runs.
 */
describe('npm start builds what changed', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function smallPackage(): { root: string; write: (path: string, text: string) => void } {
    const root = tempDir('pincer-build-');
    roots.push(root);
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('package.json', JSON.stringify({ name: 'small', private: true, type: 'module' }));
    write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', rootDir: '.', outDir: 'dist', strict: true, types: [] } }));
    write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', include: ['server'] }));
    write('server/cli.ts', 'export const answer: number = 42;\n');
    write('server/other.ts', 'export const other = "first";\n');
    return { root, write };
  }

  const lines = (root: string) => {
    const said: string[] = [];
    const ok = buildWhatChanged({ root, tools: PACKAGE_ROOT, log: (line) => said.push(line) });
    return { ok, said };
  };

  it('compiles a fresh package, then nothing until a source changes, then only that file', () => {
    const { root, write } = smallPackage();
    expect(buildPlan(root).compile).toBe('dist/server/cli.js is missing');
    expect(lines(root)).toEqual({ ok: true, said: ['Pincer: compiling what changed (dist/server/cli.js is missing)…'] });
    expect(readFileSync(join(root, 'dist/server/cli.js'), 'utf8')).toContain('42');

    expect(buildPlan(root)).toEqual({ compile: undefined, assets: undefined, dashboard: undefined });
    expect(lines(root)).toEqual({ ok: true, said: ['Pincer: the build is up to date.'] });

    const cliBefore = readFileSync(join(root, 'dist/server/cli.js'), 'utf8');
    write('server/other.ts', 'export const other = "second";\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'server/other.ts'), later, later);
    expect(lines(root).said).toEqual(['Pincer: compiling what changed (server/other.ts changed)…']);
    expect(readFileSync(join(root, 'dist/server/other.js'), 'utf8')).toContain('second');
    expect(readFileSync(join(root, 'dist/server/cli.js'), 'utf8')).toBe(cliBefore);
  });

  it('a deleted build is compiled again in full, even though the compiler\'s record says it is current', () => {
    const { root } = smallPackage();
    lines(root);
    rmSync(join(root, 'dist'), { recursive: true });
    expect(lines(root).said).toEqual(['Pincer: compiling what changed (dist/server/cli.js is missing)…']);
    expect(existsSync(join(root, 'dist/server/other.js'))).toBe(true);
  });

  it('a compile error stops the start with what to do', () => {
    const { root, write } = smallPackage();
    write('server/cli.ts', 'export const answer: number = "not a number";\n');
    const { ok, said } = lines(root);
    expect(ok).toBe(false);
    expect(said.at(-1)).toMatch(/^Pincer: compiling failed \(exit \d+\); fix the error above, or run "npm run build" for a full build\.$/);
  });

  it('the dashboard is rebuilt when a renderer source or the wire contract is newer than its build, not otherwise', () => {
    const { root, write } = smallPackage();
    lines(root);
    write('renderer/src/App.svelte', '<p>hi</p>\n');
    write('server/contract/index.ts', 'export type X = 1;\n');
    expect(buildPlan(root).dashboard).toBe('dist/renderer/index.html is missing');
    write('dist/renderer/index.html', '<!doctype html>');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'dist/renderer/index.html'), later, later);
    expect(buildPlan(root).dashboard).toBeUndefined();
    const evenLater = new Date(Date.now() + 10_000);
    utimesSync(join(root, 'server/contract/index.ts'), evenLater, evenLater);
    expect(buildPlan(root).dashboard).toBe('server/contract/index.ts changed');
  });
});

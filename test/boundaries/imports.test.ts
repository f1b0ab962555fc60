import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The dependency rules of SPEC §1, enforced by reading every import specifier in the tree. */

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE = /\.(ts|js|mjs|cjs|svelte)$/;

function filesUnder(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .map((f) => join(abs, f))
    .filter((f) => SOURCE.test(f) && !f.includes(`${sep}node_modules${sep}`) && statSync(f).isFile());
}

/** Static imports, re-exports, dynamic import() and require() with a literal specifier. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

interface Violation {
  file: string;
  specifier: string;
}

function violations(dir: string, isForbidden: (specifier: string, file: string) => boolean): Violation[] {
  return filesUnder(dir).flatMap((file) =>
    importSpecifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => isForbidden(specifier, file))
      .map((specifier) => ({ file: relative(ROOT, file), specifier })),
  );
}

/** Where a relative specifier lands, as a path from the repository root. */
function target(specifier: string, file: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return relative(ROOT, resolve(dirname(file), specifier));
}

const isNodeBuiltin = (s: string) => s.startsWith('node:') || builtinModules.includes(s.split('/')[0]!);

describe('import boundaries', () => {
  it('finds the import forms it is meant to police', () => {
    const sample = `import a from 'x1'; import type { B } from "x2"; import 'x3'; export { c } from 'x4';
      const d = await import('x5'); const e = require('x6'); export * from './x7.js';`;
    expect(importSpecifiers(sample)).toEqual(expect.arrayContaining(['x1', 'x2', 'x3', 'x4', 'x5', 'x6', './x7.js']));
  });

  it('server/ never imports electron, the renderer or plugins', () => {
    expect(
      violations('server', (s, f) => {
        if (s === 'electron' || s.startsWith('electron/')) return true;
        const t = target(s, f);
        return t !== undefined && /^(electron|renderer|plugins)(\/|$)/.test(t);
      }),
    ).toEqual([]);
  });

  it('only server/store/ touches better-sqlite3', () => {
    expect(
      violations('server', (s, f) => s === 'better-sqlite3' && !relative(ROOT, f).startsWith(`server${sep}store${sep}`)),
    ).toEqual([]);
  });

  it('electron/ enters the server only through server/index', () => {
    expect(
      violations('electron', (s, f) => {
        const t = target(s, f);
        return t !== undefined && t.startsWith(`server${sep}`) && !/^server\/index(\.[jt]s)?$/.test(t);
      }),
    ).toEqual([]);
  });

  // renderer/src is what runs in the page; the Vite and Svelte configs beside it run under Node at build time.
  it('renderer/ uses no Node built-ins and never imports server code directly', () => {
    expect(filesUnder('renderer/src').filter((f) => f.endsWith('.svelte')).length).toBeGreaterThan(0);
    expect(
      violations('renderer/src', (s, f) => {
        const t = target(s, f);
        return isNodeBuiltin(s) || (t !== undefined && /^(server|electron)(\/|$)/.test(t));
      }),
    ).toEqual([]);
  });

  it('plugins reach the gateway only through its public door', () => {
    expect(
      violations('plugins', (s, f) => {
        const t = target(s, f);
        return t !== undefined && t.startsWith(`server${sep}`) && !/^server\/(index|plugin-api)(\.[jt]s)?$/.test(t);
      }),
    ).toEqual([]);
  });

  it('nothing outside the executor calls a tool handler', () => {
    const callers = filesUnder('server').filter(
      (f) => /\.handler\s*\(/.test(readFileSync(f, 'utf8')) && !relative(ROOT, f).startsWith(`server${sep}executor${sep}`),
    );
    expect(callers.map((f) => relative(ROOT, f))).toEqual([]);
  });
});

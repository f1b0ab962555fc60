import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The dependency rules of docs/architecture.md, enforced by reading every import specifier in the tree. */

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

/**
 * Every import and re-export with whether the build erases it: only `import type` and `export type … from` are; a
 * value import, `import { type X }` (kept as a side-effect import), `import 'x'`, import() and require() are not.
 */
export function typedImports(source: string): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const m of source.matchAll(/\b(?:import|export)\s+(type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)) found.push({ specifier: m[2]!, typeOnly: m[1] !== undefined });
  const kept = [/\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of kept) for (const m of source.matchAll(pattern)) found.push({ specifier: m[1]!, typeOnly: false });
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

/** The one file of electron/ the renderer may import (type-only): the IPC contract its popup page speaks. */
const IPC_CONTRACT = /^electron\/ipc-contract(\.[jt]s)?$/;

/** The gateway's wire contract: the one part of server/ the renderer and the IPC contract may import (type-only). */
const WIRE_CONTRACT = /^server\/contract(\/[\w-]+(\.[jt]s)?)?$/;

/** What a file of `dir` imports from server/ (a relative specifier landing there), and whether only as types. */
function serverImports(dir: string): { file: string; to: string; typeOnly: boolean }[] {
  return filesUnder(dir).flatMap((file) =>
    typedImports(readFileSync(file, 'utf8')).flatMap(({ specifier, typeOnly }) => {
      const to = target(specifier, file);
      return to !== undefined && /^server(\/|$)/.test(to) ? [{ file: relative(ROOT, file), to, typeOnly }] : [];
    }),
  );
}

/** A reach into the gateway's database from the desktop shell: `x.store`, or `store` taken out of an object. */
const STORE_REACH = /\.store\b|\{[^}]*\bstore\b[^}]*\}\s*=/;

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

  it('electron/ enters the server only through server/index, and takes the wire contract as types', () => {
    const entries = serverImports('electron').filter(({ to, typeOnly }) => !/^server\/index(\.[jt]s)?$/.test(to) && !(typeOnly && WIRE_CONTRACT.test(to)));
    expect(entries).toEqual([]);
  });

  it('electron/ reaches the gateway through its named operations, never into its database', () => {
    expect(['gw.store.calls.list()', 'gateway.store', 'const { store } = gw'].map((s) => STORE_REACH.test(s))).toEqual([true, true, true]);
    expect(STORE_REACH.test('this.#window.restore()')).toBe(false);
    const reaches = filesUnder('electron').flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (STORE_REACH.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(reaches).toEqual([]);
  });

  // renderer/src is what runs in the page; the Vite and Svelte configs beside it run under Node at build time.
  it('renderer/ uses no Node built-ins and never imports server code directly', () => {
    expect(filesUnder('renderer/src').filter((f) => f.endsWith('.svelte')).length).toBeGreaterThan(0);
    expect(
      violations('renderer/src', (s, f) => {
        const t = target(s, f);
        if (t !== undefined && (IPC_CONTRACT.test(t) || WIRE_CONTRACT.test(t))) return false;
        return isNodeBuiltin(s) || (t !== undefined && /^(server|electron)(\/|$)/.test(t));
      }),
    ).toEqual([]);
  });

  it('the renderer takes only types from electron/, and only from the IPC contract', () => {
    const valueImports = filesUnder('renderer/src').flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bimport\s+(type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)]
        .filter((m) => IPC_CONTRACT.test(target(m[2]!, file) ?? '') && !m[1])
        .map((m) => `${relative(ROOT, file)}: ${m[2]}`),
    );
    expect(valueImports).toEqual([]);
  });

  it('the renderer takes only types from server/, and only from the wire contract', () => {
    const imports = serverImports('renderer/src');
    expect(imports.some(({ to }) => WIRE_CONTRACT.test(to)), 'the dashboard reads its wire types from the contract').toBe(true);
    expect(imports.filter(({ to, typeOnly }) => !typeOnly || !WIRE_CONTRACT.test(to))).toEqual([]);
  });

  it('tells a type-only import from one the build keeps', () => {
    const sample = `import type { A } from 'a'; import { B } from 'b'; import { type C } from 'c'; export type * from 'd';
      export { e } from 'e'; import 'f'; const g = await import('g');`;
    expect(typedImports(sample).map(({ specifier, typeOnly }) => `${specifier}:${typeOnly}`).sort()).toEqual(
      ['a:true', 'b:false', 'c:false', 'd:true', 'e:false', 'f:false', 'g:false'],
    );
  });

  it('server/contract is types only, and imports only itself and, as types, the error catalogue', () => {
    const files = filesUnder('server/contract');
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const name = relative(ROOT, file);
      // A declaration that emits JavaScript: the contract must vanish from every build that imports it.
      expect(source, name).not.toMatch(/^\s*(export\s+)?(default\s+)?(const|let|var|function|class|enum|namespace|module)\s+[\w$]/m);
      expect(source, name).not.toMatch(/^\s*export\s+(default|=)/m);
      for (const { specifier, typeOnly } of typedImports(source)) {
        const to = target(specifier, file) ?? specifier;
        expect(typeOnly && (to.startsWith(`server${sep}contract${sep}`) || to === 'server/errors.js'), `${name} imports ${specifier}`).toBe(true);
      }
    }
  });

  it('the IPC contract is types only, takes the wire contract as types, and the preload needs nothing but electron', () => {
    const contract = readFileSync(join(ROOT, 'electron/ipc-contract.ts'), 'utf8');
    expect(contract).not.toMatch(/^export\s+(const|let|var|function|class|enum|default)\b/m);
    const imports = typedImports(contract).map(({ specifier, typeOnly }) => ({ to: target(specifier, join(ROOT, 'electron/ipc-contract.ts')) ?? specifier, typeOnly }));
    expect(imports.filter(({ to, typeOnly }) => !typeOnly || !WIRE_CONTRACT.test(to))).toEqual([]);
    // A sandboxed preload can require only electron and a few built-ins: a relative import would fail at run time.
    const preload = readFileSync(join(ROOT, 'electron/preload/preload.cts'), 'utf8');
    const runtime = importSpecifiers(preload.replace(/^import\s+type\b.*$/gm, ''));
    expect(runtime).toEqual(['electron']);
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
    // The one other caller is a plugin's own process running its plugin's handler, asked to by the registered tool
    // the executor called (server/plugins/tools.ts): the pipeline ran first, in the gateway.
    const PLUGIN_PROCESS = join('server', 'plugins', 'child.ts');
    const callers = filesUnder('server').filter(
      (f) =>
        /\.handler\s*\(/.test(readFileSync(f, 'utf8')) &&
        !relative(ROOT, f).startsWith(`server${sep}executor${sep}`) &&
        relative(ROOT, f) !== PLUGIN_PROCESS,
    );
    expect(callers.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('server/ imports point one way: down the layers of docs/architecture.md, never up, and no module imports itself back', () => {
    const files = filesUnder('server').filter((f) => f.endsWith('.ts'));
    const graph = new Map<string, string[]>();
    const upward: string[] = [];
    const unplaced = new Set<string>();
    for (const file of files) {
      const from = relative(ROOT, file);
      const targets: string[] = [];
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        const to = target(specifier, file);
        if (to === undefined || !to.startsWith(`server${sep}`)) continue;
        const resolved = to.replace(/\.js$/, '.ts');
        targets.push(resolved);
        const [a, b] = [layerOf(from), layerOf(resolved)];
        if (a === undefined) unplaced.add(partOf(from));
        if (b === undefined) unplaced.add(partOf(resolved));
        if (a !== undefined && b !== undefined && b > a) upward.push(`${from} -> ${resolved} (layer ${a} imports layer ${b})`);
      }
      graph.set(from, targets);
    }
    expect([...unplaced], 'every part of server/ has a layer in LAYERS').toEqual([]);
    expect(upward).toEqual([]);
    expect(cycles(graph)).toEqual([]);
  });

  it('the layer check sees type-only imports and cycles', () => {
    expect(importSpecifiers(`import type { X } from '../http/app.js';`)).toEqual(['../http/app.js']);
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});

/**
 * The layers of server/, lowest first (docs/architecture.md names them): a module may import its own layer
 * and the ones below, never one above. Each entry is a folder or a top-level file of server/.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['contract', 'errors', 'version', 'decision', 'desktop', 'plugin-api'],
  ['util', 'config', 'store', 'process', 'events'],
  ['security'],
  ['memory'],
  ['tools'],
  ['plugins'],
  ['policy'],
  ['approvals', 'auth'],
  ['executor'],
  ['llm'],
  ['mcp'],
  ['http'],
  ['builtins', 'gateway', 'index'],
  ['cli'],
];

/** `server/security/path-guard.ts` → `security`; `server/index.ts` → `index`. */
function partOf(file: string): string {
  const parts = file.split(sep).slice(1);
  return parts.length === 1 ? parts[0]!.replace(/\.ts$/, '') : parts[0]!;
}

function layerOf(file: string): number | undefined {
  const part = partOf(file);
  const at = LAYERS.findIndex((layer) => layer.includes(part));
  return at === -1 ? undefined : at;
}

/** Strongly connected groups of more than one module (Tarjan), each sorted: an import cycle. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

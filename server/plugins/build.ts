import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, sep } from 'node:path';
import type { Loader, Plugin } from 'esbuild';
import type { FoundPlugin } from './discover.js';
import type { FolderHash } from './integrity.js';
import type { PluginManifest } from './manifest.js';

/** esbuild's own loaders for the extensions it knows; anything else must say what it is (`with { type }`). */
const LOADERS: Record<string, Loader> = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.json': 'json',
  '.txt': 'text',
  '.css': 'css',
};
const TYPED_LOADERS: Record<string, Loader> = { text: 'text', json: 'json', bytes: 'binary' };
const BUILTINS = new Set(builtinModules);
const MAX_ERRORS_SHOWN = 5;

/** Where a plugin's build goes: `<user plugins>/.build/<name>/`. */
export function buildDir(userDir: string, name: string): string {
  return join(userDir, '.build', name);
}

/**
 * The module a plugin's process imports. JavaScript entries run as they are. A TypeScript entry is bundled with
 * esbuild into `<user plugins>/.build/<name>/index.mjs` first (Node's permission model blocks loader hooks such as
 * tsx, so it must be plain JavaScript before the process starts); `pincer/plugin` stays an import, resolved by the
 * user folder's shim. Types are not checked here: `tsc` in the plugin's own folder does that.
 *
 * Only ever called for a plugin the owner accepted as hashed (`files`): esbuild runs in the gateway, outside the
 * plugin's permission model, so it reads nothing but those files.
 */
export async function buildEntry(found: FoundPlugin, manifest: PluginManifest, userDir: string, files: FolderHash): Promise<{ file: string; reads: string[]; outDir: string | null }> {
  const source = join(found.dir, manifest.entry);
  if (!/\.m?ts$/.test(manifest.entry)) return { file: source, reads: [], outDir: null };
  const outDir = buildDir(userDir, found.name);
  const { build } = await import('esbuild');
  let outputs: { path: string; contents: Uint8Array }[];
  try {
    const result = await build({
      entryPoints: [source],
      outdir: outDir,
      entryNames: 'index',
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      absWorkingDir: found.dir,
      logLevel: 'silent',
      sourcemap: 'inline',
      write: false,
      // Security: esbuild follows a tsconfig.json's `extends` to any file; given its options here, it reads none.
      tsconfigRaw: {},
      plugins: [insideOnly(found.dir, files)],
    });
    outputs = result.outputFiles;
  } catch (error) {
    const errors = (error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    const shown = errors.slice(0, MAX_ERRORS_SHOWN).map((e) => `${e.text}${e.location ? ` (${e.location.file}:${e.location.line}:${e.location.column})` : ''}`);
    const others = errors.length > MAX_ERRORS_SHOWN ? ` (and ${errors.length - MAX_ERRORS_SHOWN} more)` : '';
    throw new Error(`its TypeScript entry does not build: ${shown.join('; ') || (error as Error).message}${others}`);
  }
  writePrivately(outDir, outputs);
  return { file: join(outDir, 'index.mjs'), reads: [`${outDir}/*`], outDir };
}

/**
 * Where a JavaScript entry's syntax error is: Node's SyntaxError from an import names neither file nor line, so the
 * accepted files are parsed again, the same way a TypeScript entry is built (nothing written), for the first
 * error's file, line and column. Null when the parse finds none.
 */
export async function syntaxErrorPlace(found: FoundPlugin, manifest: PluginManifest, files: FolderHash): Promise<string | null> {
  const { build } = await import('esbuild');
  try {
    await build({
      entryPoints: [join(found.dir, manifest.entry)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      absWorkingDir: found.dir,
      logLevel: 'silent',
      write: false,
      tsconfigRaw: {},
      plugins: [insideOnly(found.dir, files)],
    });
    return null;
  } catch (error) {
    const errors = (error as { errors?: { location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    const at = errors.find((e) => e.location)?.location;
    // esbuild counts columns from 0, people from 1.
    return at ? `${at.file} at line ${at.line}, column ${at.column + 1}` : null;
  }
}

/**
 * Security: the build reads only the plugin's own files, exactly as the owner accepted them. Every import is
 * resolved, then refused if its real path (links followed) is outside the folder — text, JSON and file imports
 * included; `pincer/plugin` and Node's built-ins stay imports. Every file read must hash as accepted: a file
 * swapped while the build runs, or one the hash leaves out (the folder's `.git`), is refused.
 */
function insideOnly(dir: string, files: FolderHash): Plugin {
  const root = realpathSync(dir);
  // By real path: esbuild follows links, and a link's target is hashed under its own path too.
  const accepted = new Map(files.files.filter((f) => f.link === undefined).map((f) => [f.path, f.sha256]));
  const inside = (path: string): string | null => {
    const rel = relative(root, path);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
    return rel.split(sep).join('/');
  };
  return {
    name: 'pincer-plugin-folder',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'pincer-resolved') return undefined;
        const spec = args.path;
        if (spec === 'pincer/plugin' || spec.startsWith('node:') || BUILTINS.has(spec)) return { path: spec, external: true };
        const resolved = await build.resolve(spec, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, with: args.with, pluginData: 'pincer-resolved' });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const refused = (why: string) => ({ errors: [{ text: `refused the import "${spec}"${args.importer ? ` in ${inside(args.importer) || args.importer}` : ''}: ${why}` }] });
        if (resolved.external || resolved.namespace !== 'file') return refused('only files inside the plugin folder, pincer/plugin and node: built-ins can be imported');
        let real: string;
        try {
          real = realpathSync(resolved.path);
        } catch {
          return refused(`${resolved.path} cannot be read`);
        }
        const rel = inside(real);
        if (!rel) return refused(`it resolves to ${real}, outside the plugin folder (a plugin may only use its own files)`);
        return { path: real };
      });
      build.onLoad({ filter: /.*/ }, (args) => {
        const rel = inside(args.path);
        const want = rel ? accepted.get(rel) : undefined;
        if (!rel || want === undefined) return { errors: [{ text: `refused to read ${args.path}: it is not among the plugin files that were accepted` }] };
        const contents = readFileSync(args.path);
        if (createHash('sha256').update(contents).digest('hex') !== want) {
          return { errors: [{ text: `refused to read ${rel}: it changed after it was accepted` }] };
        }
        const type = args.with.type;
        const loader = type !== undefined ? TYPED_LOADERS[type] : LOADERS[extname(args.path).toLowerCase()];
        if (!loader) return { errors: [{ text: type !== undefined ? `${rel}: imports "with { type: '${type}' }" are not supported` : `${rel}: no loader for ${extname(args.path) || 'files without an extension'} files (import it with { type: 'text' })` }] };
        return { contents, loader };
      });
    },
  };
}

/**
 * The build, written where only this user can read it (folder 0700, files 0600): it can inline text the plugin
 * reads. Written aside and moved into place, so a process never starts from half a build.
 */
function writePrivately(outDir: string, outputs: { path: string; contents: Uint8Array }[]): void {
  const parent = dirname(outDir);
  // A link planted in place of the build folder would take the build (and the chmod) elsewhere.
  if (lstatSync(parent, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(parent);
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  chmodSync(parent, 0o700);
  const staging = `${outDir}.${randomBytes(6).toString('hex')}.tmp`;
  mkdirSync(staging, { mode: 0o700 });
  try {
    for (const output of outputs) {
      const rel = relative(outDir, output.path);
      if (rel.startsWith('..') || rel.startsWith(sep)) throw new Error(`esbuild wrote outside the build folder: ${output.path}`);
      const target = join(staging, rel);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, output.contents, { mode: 0o600 });
    }
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

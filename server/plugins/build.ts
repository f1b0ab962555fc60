import { join } from 'node:path';
import type { FoundPlugin } from './discover.js';
import type { PluginManifest } from './manifest.js';

/**
 * The module a plugin's process imports. JavaScript entries run as they are. A TypeScript entry is bundled with
 * esbuild into `<user plugins>/.build/<name>/index.mjs` first (Node's permission model blocks loader hooks such as
 * tsx, so it must be plain JavaScript before the process starts); `pincer/plugin` stays an import, resolved by the
 * user folder's shim. Types are not checked here: `tsc` in the plugin's own folder does that.
 */
export async function buildEntry(found: FoundPlugin, manifest: PluginManifest, userDir: string): Promise<{ file: string; reads: string[] }> {
  const source = join(found.dir, manifest.entry);
  if (!/\.m?ts$/.test(manifest.entry)) return { file: source, reads: [] };
  const outDir = join(userDir, '.build', found.name);
  const file = join(outDir, 'index.mjs');
  const { build } = await import('esbuild');
  try {
    await build({
      entryPoints: [source],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['pincer/plugin'],
      absWorkingDir: found.dir,
      logLevel: 'silent',
      sourcemap: 'inline',
    });
  } catch (error) {
    const errors = (error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    const first = errors[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line}:${first.location.column})` : '';
    throw new Error(`its TypeScript entry does not compile: ${first?.text ?? (error as Error).message}${where}`);
  }
  return { file, reads: [`${outDir}/*`] };
}

import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Electron's binary cannot run under Node: the shell's tests run against a fake typed like the real module.
    alias: { electron: here('./test/electron/fake-electron.ts') },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'node', include: ['test/**/*.test.ts'] } },
      {
        // The dashboard's rune classes (`*.svelte.ts`) and their tests: compiled as the browser gets them, and run
        // with Svelte's client runtime (its `browser` export), so $state, $derived and effects behave as on the page;
        // in its development build, which throws on misuse (state changed inside a derivation) the page would hide.
        // Only Svelte and its esm-env are resolved with these conditions: other packages load through Node as elsewhere.
        extends: true,
        plugins: [svelte({ configFile: here('./renderer/svelte.config.js'), dynamicCompileOptions: () => ({ generate: 'client' }) })],
        ssr: { resolve: { conditions: ['browser', 'development'] } },
        test: { name: 'renderer-state', include: ['test/**/*.test.svelte.ts'] },
      },
    ],
  },
});

import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The dashboard is served by the gateway itself at `/`, so it builds into dist/renderer beside dist/server.
export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [svelte({ configFile: here('svelte.config.js') })],
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // One small app: a single chunk keeps the page to three requests.
    chunkSizeWarningLimit: 400,
  },
  server: {
    // `npm run dev:renderer` against a running gateway on the default port.
    proxy: { '^/(?!src/|@|node_modules/|assets/).+': 'http://127.0.0.1:7800' },
  },
});

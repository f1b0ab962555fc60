import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const GATEWAY = process.env.PINCER_GATEWAY ?? 'http://127.0.0.1:7800';
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The dashboard is served by the gateway itself at `/`, so it builds into dist/renderer beside dist/server. The
// approval popup is a second page of the same build: the gateway serves it at `/popup/<id>` and the desktop app
// opens it in its popup windows. Both pages load their assets from `/assets/`, so `base` stays absolute.
export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [svelte({ configFile: here('svelte.config.js') })],
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      input: { index: here('index.html'), popup: here('popup.html') },
    },
  },
  server: {
    // `npm run dev:renderer`: live reload against a running gateway on the default port. The gateway only answers
    // its own Host and Origin, so the dev proxy presents itself as the gateway's own page. The popup is
    // `/popup.html?id=<approval id>` here (the gateway's `/popup/<id>` serves the last build).
    proxy: {
      '^/(?!src/|@|node_modules/|popup\\.html).+': {
        target: GATEWAY,
        changeOrigin: true,
        configure: (proxy) => proxy.on('proxyReq', (request) => request.getHeader('origin') && request.setHeader('origin', GATEWAY)),
      },
    },
  },
});

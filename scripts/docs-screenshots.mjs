// `npm run docs:screenshots`: retakes every picture in docs/screenshots/ from real Chromium against a real gateway
// (the README's dashboard and popup, and one of every view) by running the browser tests that take them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const run = spawnSync(process.execPath, [vitest, 'run', 'test/e2e/views.test.ts', 'test/e2e/popup.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PINCER_DOCS_SCREENSHOTS: '1' },
});
process.exitCode = run.status ?? 1;

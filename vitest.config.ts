import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Electron's binary cannot run under Node: the shell's tests run against a fake typed like the real module.
    alias: { electron: fileURLToPath(new URL('./test/electron/fake-electron.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
  },
});

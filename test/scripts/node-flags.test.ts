import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayNodeFlags } from '../../scripts/node-flags.mjs';

const ROOT = join(import.meta.dirname, '../..');

/** The gateway's V8 flags are written once (bin/pincer.js's shebang); every other way to start it carries the same. */
describe('the gateway\'s V8 flags', () => {
  const flags = gatewayNodeFlags(ROOT);

  it('bound the young generation and old space growth', () => {
    expect(flags).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-semi-space-size=\d+$/), expect.stringMatching(/^--heap-growing-percent=\d+$/)]));
  });

  it('are the ones `npm start` runs with', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(`node ${flags.join(' ')} bin/start.js`);
  });

  it.skipIf(process.platform === 'win32')('reach the process a script with that first line starts as a command', () => {
    // What the kernel does with bin/pincer.js: env -S splits the line, so the flags are node's own, not the script's.
    const line = readFileSync(join(ROOT, 'bin', 'pincer.js'), 'utf8').split('\n', 1)[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'pincer-shebang-'));
    try {
      const probe = join(dir, 'probe.mjs');
      writeFileSync(probe, `${line}\nprocess.stdout.write(JSON.stringify(process.execArgv));\n`);
      chmodSync(probe, 0o755);
      expect(JSON.parse(execFileSync(probe, { encoding: 'utf8' }))).toEqual(flags);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

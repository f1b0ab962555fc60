import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRunShellTool, type RunShellResult } from '../../../../server/tools/builtin/run-shell.js';

/**
 * The second wall behind the policy's `shell:git-config` ask: even when a `git status` in a repository with a
 * hostile `core.fsmonitor` is run (an owner approved it, a rule allowed it), git is told to use no monitor program.
 */

let base: string;
let repo: string;
let marker: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-git-')));
  repo = join(base, 'repo');
  marker = join(base, 'FSMONITOR-RAN');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'a.txt'), 'a');
  execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', `touch ${marker}; echo`]);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

it('the repository really is hostile: a plain git status runs its fsmonitor program', () => {
  execFileSync('git', ['-C', repo, 'status', '--porcelain'], { stdio: 'ignore' });
  expect(existsSync(marker)).toBe(true);
  rmSync(marker);
});

it('git status through run_shell runs nothing of the repository config', async () => {
  const tool = createRunShellTool({ resolveCwd: async () => ({ ok: true, path: repo }) });
  const result = (await tool.handler({ command: 'git status --porcelain && git diff && git log -1 2>&1; true' }, {
    signal: new AbortController().signal,
    callId: 'c_git',
    client: 'test',
  })) as RunShellResult;
  expect(result.exit_code).toBe(0);
  expect(result.output).toContain('a.txt');
  expect(existsSync(marker)).toBe(false);
});

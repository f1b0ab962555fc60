import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, sandboxSupport } from '../../../../server/process/sandbox.js';
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

/**
 * A repository's hooks are its own code: `git status` rewrites the index when a tracked file's stat changed and then
 * runs `.git/hooks/post-index-change`, unasked. run_shell tells git to look for hooks in /dev/null, with and without
 * the OS sandbox.
 */
describe('repository hooks', () => {
  let hooked: string;
  let hookMarker: string;

  beforeAll(() => {
    hooked = join(base, 'hooked');
    hookMarker = join(hooked, 'HOOK-RAN');
    execFileSync('git', ['init', '-q', hooked]);
    writeFileSync(join(hooked, 'tracked.txt'), 'tracked\n');
    execFileSync('git', ['-C', hooked, 'add', 'tracked.txt']);
    execFileSync('git', ['-C', hooked, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--no-verify', '-m', 'one']);
    writeFileSync(join(hooked, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\necho "$@" > '${hookMarker}'\n`, { mode: 0o755 });
  });

  /** The index no longer matches the file's stat: the next `git status` refreshes and writes it. */
  function staleIndex(): void {
    const later = new Date(Date.now() + 5_000 + Math.floor(Math.random() * 100_000));
    utimesSync(join(hooked, 'tracked.txt'), later, later);
  }

  it('the repository really is hostile: a plain git status runs its post-index-change hook', () => {
    staleIndex();
    execFileSync('git', ['-C', hooked, 'status', '--porcelain'], { stdio: 'ignore' });
    expect(existsSync(hookMarker)).toBe(true);
    rmSync(hookMarker);
  });

  const support = sandboxSupport();
  it.each(
    [
      { name: 'without the OS sandbox', sandboxed: false },
      { name: 'inside bubblewrap', sandboxed: true },
    ].filter((mode) => !mode.sandboxed || support.kind === 'bubblewrap'),
  )('git status through run_shell runs no hook ($name)', async ({ sandboxed }) => {
    const sandbox = new Sandbox(support);
    const tool = createRunShellTool({
      resolveCwd: async () => ({ ok: true, path: hooked }),
      ...(sandboxed && { sandbox: () => sandbox.wrapper({ readWrite: [base], hidden: [], network: false }) }),
    });
    staleIndex();
    const before = statSync(join(hooked, '.git', 'index')).mtimeMs;
    const result = (await tool.handler({ command: 'git status --porcelain; git config core.fsmonitor; git config core.hooksPath' }, {
      signal: new AbortController().signal,
      callId: 'c_hooks',
      client: 'test',
    })) as RunShellResult;
    // The index was rewritten (the hook's moment came), and both settings are there together.
    expect(statSync(join(hooked, '.git', 'index')).mtimeMs).toBeGreaterThan(before);
    expect(result.output.trim().split(/\s+/)).toEqual(['false', '/dev/null']);
    expect(existsSync(hookMarker)).toBe(false);
  });
});

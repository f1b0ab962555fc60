import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';
import { eventually, processesMatching } from '../../helpers/processes.js';

/*
 * The "Stops" bar (docs/development.md, "Benchmarks"): a second signal, or kill -9 followed by the next start, leaves
 * no tool process and no scratch folder. The real `pincer serve` (the compiled CLI) runs run_shell `sleep` and a busy
 * run_python loop; its TMPDIR is a folder of the test's own, so every scratch folder it makes can be counted.
 */

interface Setup {
  dataDir: string;
  root: string;
  tmp: string;
}

let setup: Setup;
let served: Served | undefined;

afterEach(async () => {
  if (served && served.child.exitCode === null && served.child.signalCode === null) {
    served.child.kill('SIGKILL');
    await served.exited;
  }
  served = undefined;
  for (const dir of Object.values(setup)) rmSync(dir, { recursive: true, force: true });
});

function prepare(): Setup {
  setup = { dataDir: tempDir(), root: tempDir('pincer-root-'), tmp: tempDir('pincer-stops-tmp-') };
  return setup;
}

/**
 * `sandbox: false` runs the tools without the OS sandbox, whose `--die-with-parent` would otherwise end them with the
 * gateway itself: the ledger, which has to work where there is no sandbox, is what is tested then.
 */
function start(options: { sandbox?: boolean } = {}): Promise<Served> {
  return serve(setup.dataDir, 0, setup.root, {
    TMPDIR: setup.tmp,
    PINCER_ROOTS: setup.root,
    ...(options.sandbox === false ? { PINCER_SANDBOX: 'off' } : {}),
  });
}

/** Starts a call and lets it run; the answer (or the refused connection once the server is gone) is ignored. */
function call(url: string, tool: string, args: unknown): void {
  const token = readFileSync(join(setup.dataDir, 'token'), 'utf8').trim();
  void fetch(`${url}/tools/${tool}/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  })
    .then((response) => response.body?.cancel())
    .catch(() => undefined);
}


/** Waits here are for a whole gateway and its tools to start or stop. */
const GATEWAY_WAIT_MS = 20_000;

/**
 * Scratch folders of the tool runs. The bundled plugins' processes have one each too (their HOME and TMPDIR, made
 * again by the next gateway): those are counted apart.
 */
const scratchFolders = () => readdirSync(setup.tmp).filter((name) => name.startsWith('pincer-') && !name.startsWith('pincer-plugin-'));
const pluginScratch = () => readdirSync(setup.tmp).filter((name) => name.startsWith('pincer-plugin-'));
/**
 * Processes of the run: the sleep by its command line, the Python loop by its working folder. Not the plugin
 * processes of the gateway running now (their scratch folders are in the same TMPDIR; listed after, as they start after).
 */
const leftovers = (sleep: string) => {
  const found = [...processesMatching(sleep), ...processesMatching(setup.tmp)];
  const plugins = new Set(pluginScratch().flatMap((name) => processesMatching(join(setup.tmp, name))));
  return found.filter((pid) => pid !== process.pid && !plugins.has(pid));
};
/** What a process is, for a failure message: its command line and state. */
const describeProcesses = (pids: number[]) =>
  pids
    .map((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 200);
        return `${pid} ${readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? '?'} ${cmdline}`;
      } catch {
        return `${pid} (gone)`;
      }
    })
    .join('\n');
/**
 * The ledger's runs of tool calls. The served gateway also runs the bundled plugins, each a long-lived process in
 * the ledger too (ended and cleaned up the same way, then started again by the next gateway): they are left out.
 */
const toolRuns = (): { file: string; pid?: unknown }[] => {
  const dir = join(setup.dataDir, 'run');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((owner) => readdirSync(join(dir, owner)).filter((name) => name.endsWith('.json')).map((name) => join(dir, owner, name)))
    .flatMap((file) => {
      try {
        const record = JSON.parse(readFileSync(file, 'utf8')) as { kind?: unknown; pid?: unknown };
        return typeof record.kind === 'string' && record.kind.startsWith('plugin:') ? [] : [{ file, pid: record.pid }];
      } catch {
        return [{ file }];
      }
    });
};
const ledgerFiles = () => toolRuns().map((run) => run.file);

/** One run_shell sleep and one run_python busy loop, both running once this resolves. */
async function startTools(url: string, sleep: string): Promise<void> {
  call(url, 'run_shell', { command: sleep, timeout_ms: 120_000 });
  call(url, 'run_python', { code: 'while True:\n    pass', timeout_ms: 120_000 });
  const ready = await eventually(() => processesMatching(sleep).length > 0 && processesMatching(join(setup.tmp, 'pincer-python-')).length > 0, GATEWAY_WAIT_MS);
  expect(ready, `the tools did not start:\n${served?.output()}`).toBe(true);
  // The ledger writes a run before it starts and again once it has a pid: wait for the second write, so a kill -9
  // right now finds both runs by their leaders.
  const recorded = await eventually(() => ledgerPids() === 2, GATEWAY_WAIT_MS);
  expect(recorded, 'both runs are in the ledger with their pids').toBe(true);
  expect(scratchFolders()).toHaveLength(2);
}

/** How many tool runs the ledger holds with a pid. */
function ledgerPids(): number {
  return toolRuns().filter((run) => typeof run.pid === 'number').length;
}

// Each test starts the real gateway (twice for kill -9) and real tools: slow on a loaded machine.
describe('stops leave nothing behind', { timeout: 90_000 }, () => {
  it('kill -9 of pincer serve mid-call (no sandbox): the next start kills what was left and removes the scratch folders', async () => {
    prepare();
    served = await start({ sandbox: false });
    await startTools(served.url, 'sleep 30.9191');

    served.child.kill('SIGKILL');
    await served.exited;
    // kill -9 cannot be caught: the tool processes and their folders are still there.
    expect(leftovers('sleep 30.9191').length).toBeGreaterThan(0);
    expect(scratchFolders()).toHaveLength(2);
    const pluginFolders = pluginScratch();

    served = await start({ sandbox: false });
    expect(leftovers('sleep 30.9191')).toEqual([]);
    expect(scratchFolders()).toEqual([]);
    // The earlier gateway's plugin processes went too, and their folders.
    expect(pluginScratch().filter((name) => pluginFolders.includes(name))).toEqual([]);
    expect(pluginFolders.flatMap((name) => processesMatching(join(setup.tmp, name)))).toEqual([]);
    expect(ledgerFiles()).toEqual([]);
    const lines = served.output().split('\n').filter((line) => line.includes('an earlier run of the gateway left') && !line.includes('left plugin:'));
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).toMatch(/left run_shell \(pid \d+\) started \S+ running: \d+ process(es)? killed, scratch folder .*pincer-shell-tmp-\w+ removed/);
    expect(lines.join('\n')).toMatch(/left run_python \(pid \d+\) started \S+ running: 1 process killed, scratch folder .*pincer-python-\w+ removed/);
  });

  it('kill -9 of pincer serve mid-call (in the sandbox): the next start leaves no sandbox, tool or folder behind', async () => {
    prepare();
    served = await start();
    await startTools(served.url, 'sleep 30.9393');

    served.child.kill('SIGKILL');
    await served.exited;
    // bubblewrap's --die-with-parent usually takes the sandboxed processes down with the gateway, but not when the
    // gateway dies while a sandbox is still being set up; either way their folders stay, and the ledger has them.
    expect(scratchFolders()).toHaveLength(2);
    const pluginFolders = pluginScratch();

    served = await start();
    expect(leftovers('sleep 30.9393'), describeProcesses(leftovers('sleep 30.9393'))).toEqual([]);
    expect(scratchFolders()).toEqual([]);
    expect(pluginScratch().filter((name) => pluginFolders.includes(name))).toEqual([]);
    expect(pluginFolders.flatMap((name) => processesMatching(join(setup.tmp, name)))).toEqual([]);
    expect(ledgerFiles()).toEqual([]);
  });

  it('a second SIGTERM mid-call kills every tool process and removes the scratch folders before exiting 130', async () => {
    prepare();
    served = await start();
    await startTools(served.url, 'sleep 30.9292');

    served.child.kill('SIGTERM');
    expect(await eventually(() => /Stopping \(SIGTERM\)/.test(served!.output()), GATEWAY_WAIT_MS)).toBe(true);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(130);
    expect(served.output()).toMatch(/SIGTERM again, stopping now \(killed the processes of 2 running tool calls\)/);
    // Nothing to wait for: the gateway had killed them before it exited.
    expect(leftovers('sleep 30.9292')).toEqual([]);
    expect(scratchFolders()).toEqual([]);
    expect(pluginScratch()).toEqual([]);
    expect(ledgerFiles()).toEqual([]);

    // And the next start finds nothing to clean.
    served = await start();
    expect(served.output()).not.toMatch(/an earlier run of the gateway left/);
  });

  it('a second SIGINT does the same', async () => {
    prepare();
    served = await start();
    await startTools(served.url, 'sleep 30.9393');

    served.child.kill('SIGINT');
    expect(await eventually(() => /Stopping \(SIGINT\)/.test(served!.output()), GATEWAY_WAIT_MS)).toBe(true);
    served.child.kill('SIGINT');
    expect(await served.exited).toBe(130);
    expect(leftovers('sleep 30.9393')).toEqual([]);
    expect(scratchFolders()).toEqual([]);
  });

  it('one SIGTERM mid-call stops the tools after the grace period and exits 0, leaving nothing', async () => {
    prepare();
    served = await start();
    await startTools(served.url, 'sleep 30.9494');

    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(leftovers('sleep 30.9494')).toEqual([]);
    expect(scratchFolders()).toEqual([]);
    expect(pluginScratch()).toEqual([]);
    expect(ledgerFiles()).toEqual([]);
  });
});

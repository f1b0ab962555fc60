// Starts the Electron app and tells a launch that failed at once (a crash, a missing library) from one that runs.
import { spawn } from 'node:child_process';

/** An Electron that fails to start (missing libraries, a crash in the main process) exits well within this. */
export const SETTLE_MS = 5_000;

/**
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null }} ExitStatus
 * @typedef {{ started: true, child: import('node:child_process').ChildProcess, exited: Promise<ExitStatus> }} Started
 * @typedef {{ started: false, reason: string }} NotStarted
 */

/**
 * The environment Electron runs the app in: the caller's, minus ELECTRON_RUN_AS_NODE, which would make Electron run
 * the main script as plain Node (an MCP client's environment may carry it).
 * @param {NodeJS.ProcessEnv} env
 * @returns {NodeJS.ProcessEnv}
 */
export function appEnvironment(env) {
  const copy = { ...env };
  delete copy.ELECTRON_RUN_AS_NODE;
  return copy;
}

/**
 * Runs `electron appDir ...args`. Resolves `started: false` with the reason when it exits with a failure (or cannot
 * be run) within `settleMs`; otherwise `started: true` once it has run that long or ended cleanly. Its output is
 * held back until then, so a failed start adds only its last error line to the caller's one line.
 * `onSpawn` gets the process at once, so a signal that comes while it starts can be passed on.
 * `jsFlags` are V8 flags for the main process (Electron's --js-flags), where the gateway runs.
 * @param {{ electron: string, appDir: string, args?: string[], jsFlags?: string[], env?: NodeJS.ProcessEnv, settleMs?: number,
 *           onSpawn?: (child: import('node:child_process').ChildProcess) => void }} options
 * @returns {Promise<Started | NotStarted>}
 */
export function launchElectron({ electron, appDir, args = [], jsFlags = [], env = process.env, settleMs = SETTLE_MS, onSpawn }) {
  const switches = jsFlags.length > 0 ? [`--js-flags=${jsFlags.join(' ')}`] : [];
  const child = spawn(electron, [...switches, appDir, ...args], { env: appEnvironment(env), stdio: ['inherit', 'pipe', 'pipe'] });
  onSpawn?.(child);
  /** @type {Promise<ExitStatus>} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  /** @type {Promise<void>} */
  const closed = new Promise((resolve) => child.once('close', () => resolve()));
  /** @type {Array<[NodeJS.WritableStream, Buffer]>} */
  const held = [];
  /** Holding output back until the launch is settled, then passing it on (or dropping it after a failed start). */
  let mode = /** @type {'hold' | 'pass' | 'drop'} */ ('hold');
  for (const [from, to] of /** @type {const} */ ([
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ])) {
    from.on('data', (/** @type {Buffer} */ chunk) => {
      if (mode === 'pass') to.write(chunk);
      else if (mode === 'hold') held.push([to, chunk]);
    });
  }
  const release = () => {
    mode = 'pass';
    for (const [to, chunk] of held.splice(0)) to.write(chunk);
  };

  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      release();
      resolve({ started: true, child, exited });
    }, settleMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      mode = 'drop';
      resolve({ started: false, reason: `Electron could not be run (${error.message})` });
    });
    void exited.then(async ({ code, signal }) => {
      if (mode !== 'hold') return;
      clearTimeout(timer);
      if (code === 0) {
        // A clean quit (another instance already running, say) is the app's answer, not a failed start.
        release();
        resolve({ started: true, child, exited });
        return;
      }
      // Its last words may still be in the pipe when it exits; a helper process holding the pipe open must not
      // hold up the fallback, though.
      await Promise.race([closed, new Promise((r) => setTimeout(r, 500))]);
      mode = 'drop';
      const lastError = lastLine(held.filter(([to]) => to === process.stderr).map(([, chunk]) => chunk));
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve({ started: false, reason: `Electron ${how} as it started${lastError ? `: ${lastError}` : ''}` });
    });
  });
}

/**
 * The last non-empty line of some output, shortened for a one-line message.
 * @param {Buffer[]} chunks
 * @returns {string}
 */
function lastLine(chunks) {
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const line = lines.at(-1) ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

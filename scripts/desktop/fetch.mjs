// `npm start` on a machine with a display but without Electron's binary: one attempt to fetch it, with Electron's
// own installer (it honours ELECTRON_MIRROR and Electron's cache), a progress line and a time limit. A failure is
// remembered in the data folder, so the next start goes straight to the headless gateway instead of waiting again.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Long enough for a ~100 MB download on an ordinary line; a blocked network fails well before it. */
export const FETCH_TIMEOUT_MS = 120_000;
/** How often a line says the download is still going. */
export const PROGRESS_EVERY_MS = 10_000;
/** The marker of a failed attempt, in the data folder (`pincer doctor` reads it too). */
export const FETCH_MARKER = 'electron-fetch-failed.json';

/**
 * The remembered failure for this Electron version and mirror, if any: a different mirror or version is tried anew.
 * @param {string} dataDir
 * @param {string} version
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ reason: string, at: string, file: string } | undefined}
 */
export function rememberedFailure(dataDir, version, env) {
  const file = join(dataDir, FETCH_MARKER);
  if (!existsSync(file)) return undefined;
  try {
    const marker = JSON.parse(readFileSync(file, 'utf8'));
    if (marker.version !== version || (marker.mirror ?? '') !== (env.ELECTRON_MIRROR ?? '')) return undefined;
    return { reason: String(marker.reason), at: String(marker.at), file };
  } catch {
    return { reason: 'an earlier attempt failed', at: '?', file };
  }
}

/**
 * Runs electron's install.js once. Resolves `{ fetched: true }` when the binary is there afterwards; otherwise the
 * reason, which is then remembered.
 * @param {{ electron: { dir: string, version: string }, dataDir: string, binaryPresent: () => boolean,
 *           env?: NodeJS.ProcessEnv, log?: (line: string) => void, timeoutMs?: number, progressEveryMs?: number }} options
 * @returns {Promise<{ fetched: true } | { fetched: false, reason: string }>}
 */
export async function fetchElectron({ electron, dataDir, binaryPresent, env = process.env, log = console.log, timeoutMs = FETCH_TIMEOUT_MS, progressEveryMs = PROGRESS_EVERY_MS }) {
  const earlier = rememberedFailure(dataDir, electron.version, env);
  if (earlier) {
    return { fetched: false, reason: `fetching it failed on ${earlier.at} (${earlier.reason}); run "npx install-electron" to try again` };
  }
  const from = env.ELECTRON_MIRROR ? ` from ${env.ELECTRON_MIRROR}` : '';
  log(`Pincer: fetching Electron ${electron.version}'s binary${from}, once (up to ${Math.round(timeoutMs / 1000)} s)…`);
  const started = Date.now();
  const child = spawn(process.execPath, [join(electron.dir, 'install.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (/** @type {Buffer} */ d) => (output += d.toString()));
  child.stderr.on('data', (/** @type {Buffer} */ d) => (output += d.toString()));
  const progress = setInterval(() => log(`Pincer: still fetching Electron… ${Math.round((Date.now() - started) / 1000)} s`), progressEveryMs);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  /** @type {{ code: number | null, error?: Error }} */
  const ended = await new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  clearInterval(progress);
  clearTimeout(timer);
  if (ended.code === 0 && binaryPresent()) {
    log(`Pincer: fetched Electron ${electron.version} in ${Math.round((Date.now() - started) / 1000)} s.`);
    return { fetched: true };
  }
  const reason = timedOut
    ? `no complete download within ${Math.round(timeoutMs / 1000)} s`
    : ended.error?.message ?? (ended.code === 0 ? 'the installer finished but left no binary' : installerError(output, env.ELECTRON_MIRROR));
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, FETCH_MARKER), `${JSON.stringify({ version: electron.version, mirror: env.ELECTRON_MIRROR ?? '', reason, at: new Date().toISOString() }, null, 2)}\n`);
  } catch {
    // Not remembered: the next start tries again, which is slower but not wrong.
  }
  log(`Pincer: could not fetch Electron's binary: ${reason}. The next start will not try again ("npx install-electron" does, or delete ${join(dataDir, FETCH_MARKER)}).`);
  return { fetched: false, reason: `fetching it failed (${reason})` };
}

/**
 * The installer's own words for what went wrong: the first line of its error (it prints the stack). Node's fetch
 * says only "fetch failed" when no connection could be made, so that one is put in words.
 * @param {string} output
 * @param {string | undefined} mirror
 */
function installerError(output, mirror) {
  if (/^TypeError: fetch failed$/m.test(output)) return `no connection to ${mirror || "Electron's download server"} could be made`;
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const found = lines.find((l) => /error/i.test(l) && !l.startsWith('at ')) ?? lines[0] ?? 'the installer failed without a message';
  const line = found.replace(/^[\w.]*Error:\s*/, '').replace(/\.+$/, '');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

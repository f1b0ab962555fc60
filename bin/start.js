#!/usr/bin/env node
// `npm start`: the desktop app when Electron can start here; otherwise one line saying why, then the same gateway
// headless (SPEC §2). `npm start -- ARGS` passes ARGS to either.
import { constants } from 'node:os';
import { ROOT } from '../scripts/desktop/electron.mjs';
import { launchElectron } from '../scripts/desktop/launch.mjs';
import { desktopFacts, desktopPlan } from '../scripts/desktop/plan.mjs';

const args = process.argv.slice(2);
const plan = desktopPlan(desktopFacts());
let reason = plan.launch ? undefined : plan.reason;

if (plan.launch) {
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let app;
  let stopping = false;
  /** @param {NodeJS.Signals} signal */
  const pass = (signal) => {
    stopping = true;
    app?.kill(signal);
  };
  const signals = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
  for (const signal of signals) process.on(signal, pass);
  // Electron loads the app folder: package.json's "main" is the compiled main process, and its name is the app's.
  const launch = await launchElectron({ electron: plan.electron, appDir: ROOT, args, onSpawn: (child) => (app = child) });
  if (launch.started) {
    const { code, signal } = await launch.exited;
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
  }
  // A launch ended by Ctrl+C (it reaches Electron too) or a stop request is no reason to start the gateway.
  if (stopping) process.exit(130);
  for (const signal of signals) process.off(signal, pass);
  reason = launch.reason;
}

process.stdout.write(`Pincer: the desktop app cannot start here: ${reason}. Running the headless gateway instead.\n`);
const { main } = await import(new URL('../dist/server/cli.js', import.meta.url).href);
process.exitCode = await main(['serve', ...args]);

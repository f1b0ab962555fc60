#!/usr/bin/env node
// `npm start`: the desktop app when Electron can start here; otherwise one line saying why, then the same gateway
// headless (docs/desktop.md). `npm start -- ARGS` passes ARGS to either.
//
// Before anything slow it checks that the data folder is free and the port open; run by `npm start`, it then builds
// only what changed since the last build (`node bin/start.js` alone launches what is built).
import { constants } from 'node:os';
import { join } from 'node:path';
import { prepare } from '../scripts/electron-native.mjs';
import { electronBinary, electronPackage, ROOT } from '../scripts/desktop/electron.mjs';
import { fetchElectron } from '../scripts/desktop/fetch.mjs';
import { launchElectron } from '../scripts/desktop/launch.mjs';
import { gatewayNodeFlags } from '../scripts/node-flags.mjs';
import { desktopFacts, desktopPlan } from '../scripts/desktop/plan.mjs';
import { buildWhatChanged } from '../scripts/start/build.mjs';
import { startConfig, startProblem } from '../scripts/start/precheck.mjs';

const args = process.argv.slice(2);
const say = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);

const config = await startConfig(ROOT, args);
const problem = config && (await startProblem(ROOT, config));
if (problem) {
  process.stderr.write(`Pincer: ${problem}\n`);
  process.exit(1);
}
const building = process.env.npm_lifecycle_event === 'start';
if (building && !buildWhatChanged({ root: ROOT, log: say })) process.exit(1);

let facts = desktopFacts();
/** @type {string | undefined} */
let fetchFailed;
const electron = electronPackage(ROOT);
if (electron && facts.electronInstalled && !facts.electron && facts.display) {
  // The desktop app is the product's main shape: one try at the download before settling for headless.
  const dataDir = config?.dataDir ?? join(ROOT, 'node_modules', '.cache', 'pincer');
  const fetched = await fetchElectron({ electron, dataDir, binaryPresent: () => electronBinary(electron.dir, process.env).present, log: say });
  if (fetched.fetched) facts = desktopFacts();
  else fetchFailed = `Electron's binary is not downloaded and ${fetched.reason}`;
}
// The Electron build of the database addon, only where the app is about to run: it needs the binary and a display.
if (building && facts.electron && facts.display && facts.nativeProblem) {
  await prepare();
  facts = desktopFacts();
}
const plan = desktopPlan(facts);
let reason = plan.launch ? undefined : (fetchFailed ?? plan.reason);

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
  const launch = await launchElectron({ electron: plan.electron, appDir: ROOT, args, jsFlags: gatewayNodeFlags(ROOT), onSpawn: (child) => (app = child) });
  if (launch.started) {
    const { code, signal } = await launch.exited;
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
  }
  // A launch ended by Ctrl+C (it reaches Electron too) or a stop request is no reason to start the gateway.
  if (stopping) process.exit(130);
  for (const signal of signals) process.off(signal, pass);
  reason = launch.reason;
}

say(`Pincer: the desktop app cannot start here: ${reason}. Running the headless gateway instead.`);
const { main } = await import(new URL('../dist/server/cli.js', import.meta.url).href);
process.exitCode = await main(['serve', ...args]);

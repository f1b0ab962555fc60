// Before `npm start` builds anything: is a gateway already running on this data folder, and is the port free?
// Both answers take milliseconds; finding out after a build wasted the build.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The flags of `npm start -- ARGS` that choose the data folder and the address (the rest go to the app untouched).
 * @param {string[]} args
 */
export function addressFlags(args) {
  const { values } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, 'no-auth': { type: 'boolean' } },
    strict: false,
    allowPositionals: true,
  });
  /** @type {{ dataDir?: string, host?: string, port?: string }} */
  const flags = {};
  if (typeof values['data-dir'] === 'string') flags.dataDir = values['data-dir'];
  if (typeof values.host === 'string') flags.host = values.host;
  if (typeof values.port === 'string') flags.port = values.port;
  return flags;
}

/**
 * Reads the configuration with the last build's loader (the settings' format changes rarely); undefined before the
 * first build or when the configuration has an error, which the gateway reports in full once it starts.
 * @param {string} root
 * @param {string[]} args
 * @returns {Promise<{ dataDir: string, host: string, port: number } | undefined>}
 */
export async function startConfig(root, args) {
  const loader = join(root, 'dist', 'server', 'config', 'config.js');
  if (!existsSync(loader)) return undefined;
  try {
    const { loadConfig } = await import(pathToFileURL(loader).href);
    const config = loadConfig({ flags: addressFlags(args) });
    return { dataDir: config.dataDir, host: config.host, port: config.port };
  } catch {
    return undefined;
  }
}

/**
 * Why the gateway cannot start as asked, with what to do, or undefined when nothing stands in the way.
 * @param {string} root
 * @param {{ dataDir: string, host: string, port: number }} config
 * @returns {Promise<string | undefined>}
 */
export async function startProblem(root, config) {
  const store = join(root, 'dist', 'server', 'store', 'index.js');
  const doctor = join(root, 'dist', 'server', 'cli', 'doctor.js');
  if (!existsSync(store) || !existsSync(doctor)) return undefined;
  const { lockHolder, describeHolder } = await import(pathToFileURL(store).href);
  const held = lockHolder(config.dataDir);
  if (held) {
    return (
      `the data folder ${config.dataDir} is in use by ${describeHolder(held.holder)}. ` +
      'Open its dashboard with "npx pincer login-url", stop it first, or start another with "npm start -- --data-dir DIR --port N".'
    );
  }
  const { listenProblem } = await import(pathToFileURL(doctor).href);
  const problem = await listenProblem(config.host, config.port);
  if (problem === 'EADDRINUSE') {
    return `port ${config.port} on ${config.host} is in use by another program (or a gateway of another data folder); choose another with "npm start -- --port ${config.port + 1}".`;
  }
  if (problem) return `cannot listen on ${config.host}:${config.port} (${problem}); choose another address with "npm start -- --host H --port N".`;
  return undefined;
}

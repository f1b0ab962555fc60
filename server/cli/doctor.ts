import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, urlHost, type PincerConfig } from '../config/config.js';
import { DEFAULT_UPSTREAM } from '../llm/http.js';
import { OllamaProvider } from '../llm/ollama.js';
import { OpenAIProvider } from '../llm/openai.js';
import { sandboxSupport } from '../process/sandbox.js';
import { describeHolder, lockHolder } from '../store/index.js';
import { PACKAGE_ROOT } from '../version.js';
import { configFrom, ownerRequest, parse, rootsLine, sqliteBinding, UsageError, type Out } from './common.js';

/** ok: nothing to do; warn: Pincer runs, with something missing; fail: Pincer cannot start (or be reached) as set up. */
type Level = 'ok' | 'warn' | 'fail';
interface Finding {
  topic: string;
  level: Level;
  text: string;
  /** What to do about it, when there is something to do. */
  fix?: string;
}

/** How long the model server may take to list its models before it counts as unreachable. */
const LLM_TIMEOUT_MS = 3_000;

/**
 * `pincer doctor`: what stands between this machine and a working Pincer — the OS sandbox, the desktop app, the
 * model server, the port, the data folder and the shared folders — each with what to do. Exit code 1 when something
 * blocks a start, else 0 (warnings included).
 */
export async function doctor(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError('usage: pincer doctor [--json] [--data-dir DIR] [--host H] [--port P]');
  let config: PincerConfig;
  try {
    config = configFrom(values);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A config the gateway would refuse is the first thing to fix; the checks that need none still run.
    const unreadable: Finding = { topic: 'config', level: 'fail', text: error.message, fix: 'correct the setting named above, then run "pincer doctor" again for the other checks' };
    return report([unreadable, sandbox()], undefined, values.json === true, out);
  }
  const held = lockHolder(config.dataDir, sqliteBinding() ? { nativeBinding: sqliteBinding()! } : {});
  const running = held?.holder?.url;
  const findings: Finding[] = [
    sandbox(),
    await electron(config),
    await llm(config),
    held ? gatewayRunning(config, running, describeHolder(held.holder)) : await port(config),
    await roots(config, running),
  ];
  return report(findings, config.dataDir, values.json === true, out);
}

/** Prints the findings (or their JSON); the exit code is 1 when any blocks a start. */
function report(findings: Finding[], dataDir: string | undefined, json: boolean, out: Out): number {
  const blocking = findings.filter((f) => f.level === 'fail').length;
  if (json) {
    out.log(JSON.stringify({ data_dir: dataDir ?? null, ok: blocking === 0, checks: findings }, null, 2));
    return blocking ? 1 : 0;
  }
  out.log(dataDir ? `Pincer doctor — data folder ${dataDir}` : 'Pincer doctor');
  const label = { ok: 'OK  ', warn: 'WARN', fail: 'FAIL' } as const;
  for (const f of findings) {
    out.log(`${label[f.level]}  ${f.topic.padEnd(9)} ${f.text}`);
    if (f.fix) out.log(`      ${''.padEnd(9)} → ${f.fix}`);
  }
  const problems = blocking === 1 ? '1 problem above stops' : `${blocking} problems above stop`;
  out.log(blocking ? `${problems} Pincer from starting as set up.` : 'Nothing stops Pincer from starting.');
  return blocking ? 1 : 0;
}

function sandbox(): Finding {
  const found = sandboxSupport();
  if (found.kind !== 'none') return { topic: 'sandbox', level: 'ok', text: found.detail };
  const fix =
    process.platform === 'linux'
      ? 'install bubblewrap (Debian/Ubuntu: "sudo apt install bubblewrap"; Fedora: "sudo dnf install bubblewrap") and restart the gateway'
      : 'run_shell and run_python rely on the approval policy alone on this system';
  return { topic: 'sandbox', level: 'warn', text: `none: ${found.detail} run_shell and run_python run without an OS sandbox.`, fix };
}

/** The desktop app's checks live beside `npm start` (scripts/desktop): a checkout has them, the installed app is Electron. */
async function electron(config: PincerConfig): Promise<Finding> {
  const scripts = join(PACKAGE_ROOT, 'scripts', 'desktop');
  if (!existsSync(join(scripts, 'plan.mjs'))) return { topic: 'electron', level: 'ok', text: 'this is the installed desktop app' };
  const load = async <T>(name: string) => (await import(pathToFileURL(join(scripts, name)).href)) as T;
  const { desktopFacts, desktopPlan } = await load<typeof import('../../scripts/desktop/plan.mjs')>('plan.mjs');
  const { electronPackage } = await load<typeof import('../../scripts/desktop/electron.mjs')>('electron.mjs');
  const { rememberedFailure } = await load<typeof import('../../scripts/desktop/fetch.mjs')>('fetch.mjs');
  const facts = desktopFacts();
  const plan = desktopPlan(facts);
  if (plan.launch) return { topic: 'electron', level: 'ok', text: `the desktop app can start (${plan.electron})` };
  if (!facts.display) {
    const binary = facts.electronInstalled && !facts.electron ? "; Electron's binary is not downloaded either" : '';
    return { topic: 'electron', level: 'ok', text: `no display here (DISPLAY and WAYLAND_DISPLAY are unset): "npm start" runs the gateway headless and the dashboard works in a browser${binary}` };
  }
  const headless = `"npm start" runs the gateway headless instead: ${plan.reason}`;
  const version = electronPackage()?.version;
  const failed = version && !facts.electron ? rememberedFailure(config.dataDir, version, process.env) : undefined;
  if (failed) {
    return {
      topic: 'electron',
      level: 'warn',
      text: `${headless}; fetching the binary failed on ${failed.at} (${failed.reason})`,
      fix: `run "npx install-electron" to try again (ELECTRON_MIRROR names a mirror), or delete ${failed.file} so "npm start" tries once more`,
    };
  }
  return { topic: 'electron', level: 'warn', text: headless, fix: facts.electronInstalled ? '"npm start" tries to fetch it once; "npx install-electron" does it by hand' : 'npm install (with the dev dependencies)' };
}

async function llm(config: PincerConfig): Promise<Finding> {
  const { baseUrl, api, model } = config.llm;
  const upstream = { ...DEFAULT_UPSTREAM, retries: 0, idleTimeoutMs: LLM_TIMEOUT_MS, baseUrl, api, apiKey: config.llmApiKey };
  const provider = api === 'openai' ? new OpenAIProvider(upstream) : new OllamaProvider(upstream);
  let names: string[];
  try {
    names = (await provider.models(AbortSignal.timeout(LLM_TIMEOUT_MS))).map((m) => m.id);
  } catch (error) {
    return {
      topic: 'model',
      level: 'warn',
      text: `the model server at ${baseUrl} (${api} API) does not answer: ${(error as Error).message.replace(/\.+$/, '')}. Tools work without it; chat does not.`,
      fix: api === 'ollama' ? 'start Ollama ("ollama serve"), or set llm.base_url in config.json' : 'start the server, or set llm.base_url in config.json',
    };
  }
  if (names.length === 0) {
    return { topic: 'model', level: 'warn', text: `${baseUrl} answers but lists no model`, fix: api === 'ollama' ? 'download one: "ollama pull qwen2.5:7b"' : 'load a model in the server' };
  }
  const listed = `${names.length} model${names.length > 1 ? 's' : ''}: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
  if (model && !names.includes(model)) {
    return { topic: 'model', level: 'warn', text: `${baseUrl} answers (${listed}) but not the configured llm.model "${model}"`, fix: 'set llm.model in config.json to one it lists' };
  }
  return { topic: 'model', level: 'ok', text: `${baseUrl} answers (${listed})${model ? `; llm.model is ${model}` : ''}` };
}

function gatewayRunning(config: PincerConfig, url: string | undefined, who: string): Finding {
  if (!url) return { topic: 'gateway', level: 'ok', text: `a gateway is starting on this data folder (${who})` };
  const configured = `http://${urlHost(config.host)}:${config.port}`;
  const elsewhere = url !== configured ? ` (not on the configured ${configured}: commands find it through the data folder)` : '';
  return { topic: 'gateway', level: 'ok', text: `${who} serves this data folder${elsewhere}` };
}

/** No gateway holds the folder: is the port it would listen on free? */
async function port(config: PincerConfig): Promise<Finding> {
  const problem = await listenProblem(config.host, config.port);
  if (!problem) return { topic: 'port', level: 'ok', text: `${config.host}:${config.port} is free; no gateway is running on this data folder` };
  if (problem !== 'EADDRINUSE') return { topic: 'port', level: 'fail', text: `cannot listen on ${config.host}:${config.port}: ${problem}`, fix: 'choose another address with --host / --port' };
  const pincer = await isPincer(`http://${urlHost(config.host)}:${config.port}`);
  const holder = pincer ? 'a Pincer gateway of another data folder' : 'another program';
  const fix = `start on another port: "pincer serve --port ${config.port + 1}" (or "npm start -- --port ${config.port + 1}"), or set "port" in config.json`;
  return { topic: 'port', level: 'fail', text: `${config.host}:${config.port} is taken by ${holder}`, fix };
}

/** Why listening on host:port fails right now (an error code), or undefined when it would work. */
export async function listenProblem(host: string, port: number): Promise<string | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

async function isPincer(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { status?: unknown; version?: unknown } | null;
    return response.ok && body?.status === 'ok' && typeof body.version === 'string';
  } catch {
    return false;
  }
}

async function roots(config: PincerConfig, running: string | undefined): Promise<Finding> {
  let shared = config.roots;
  let notice = config.rootsNotice;
  if (running) {
    try {
      const { status, json } = await ownerRequest(config, 'GET', '/settings');
      if (status === 200) {
        shared = (json as { roots: string[] }).roots;
        notice = undefined;
      }
    } catch {
      // The configured list is the next best answer.
    }
  }
  const text = rootsLine({ roots: shared, rootsNotice: notice });
  const here = running ? '' : ' (as "pincer serve" started in this folder would)';
  if (shared.length > 0) return { topic: 'folders', level: 'ok', text: `${text}${here}` };
  return { topic: 'folders', level: 'warn', text: `no folder is shared${notice ? ` (${notice})` : ''}`, fix: 'share one: "pincer roots add ~/projects/demo" (or in the dashboard\'s Settings)' };
}

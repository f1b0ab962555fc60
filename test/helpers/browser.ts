import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort, runPincer, serve, type Served } from './cli.js';
import { tempDir } from './gateway.js';

/** Debian's Chromium (CI installs it from apt); playwright never downloads a browser here. */
export const CHROMIUM = process.env.PINCER_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Screenshots of every end-to-end test land here (kept by CI as artifacts). */
export const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/screenshots');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not at ${CHROMIUM}: install it (apt-get install chromium) or set PINCER_CHROMIUM to its path.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A real `pincer serve` on a temp data directory, with a workspace folder as its only root. */
export interface DashboardGateway {
  served: Served;
  url: string;
  port: number;
  dataDir: string;
  workspace: string;
  token: string;
  /** Stops the gateway (SIGTERM) and runs `pincer serve` again on the same port and data directory. */
  restart(): Promise<void>;
  /** A fresh one-time login link, as `pincer login-url` prints it. */
  loginUrl(): Promise<string>;
  /** fetch with the default client token, as an assistant would call. */
  call(path: string, init?: { method?: string; json?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** `cwd`: where `pincer serve` starts (default: the workspace, which is then its root). */
export async function startDashboardGateway(options: { cwd?: string } = {}): Promise<DashboardGateway> {
  const dataDir = tempDir('pincer-e2e-');
  const workspace = tempDir('pincer-e2e-root-');
  const cwd = options.cwd ?? workspace;
  const port = await freePort();
  let served = await serve(dataDir, port, cwd);
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const url = served.url.replace(/\/$/, '');
  return {
    get served() {
      return served;
    },
    url,
    port,
    dataDir,
    workspace,
    token,
    async restart() {
      served.child.kill('SIGTERM');
      await served.exited;
      served = await serve(dataDir, port, cwd);
    },
    async loginUrl() {
      const result = await runPincer(['login-url', '--data-dir', dataDir, '--port', String(port)]);
      const link = /http:\/\/\S+\/auth\?code=\S+/.exec(result.stdout)?.[0];
      if (!link) throw new Error(`pincer login-url printed no link:\n${result.stdout}${result.stderr}`);
      return link;
    },
    call(path, init = {}) {
      return fetch(`${url}${path}`, {
        method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.json !== undefined && { 'content-type': 'application/json' }),
          ...init.headers,
        },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      });
    },
    async close() {
      served.child.kill('SIGTERM');
      await served.exited;
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export interface OwnerPage {
  context: BrowserContext;
  page: Page;
  /** Problems the page reported (uncaught errors, console errors): a test ends by asserting there were none. */
  problems: string[];
}

/** A new browser profile that logged in through a one-time link, as the owner would, at 1280×800. */
export async function openAsOwner(browser: Browser, gateway: DashboardGateway, colorScheme: 'light' | 'dark' = 'light'): Promise<OwnerPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.goto(await gateway.loginUrl());
  await page.getByRole('navigation', { name: 'Views' }).waitFor();
  return { context, page, problems };
}

/**
 * Closes the owner's page, failing the test if the page threw or logged an error: a defect even when the scenario
 * passed. A request the gateway refused is logged by the browser as a failed resource; that is the scenario's to check.
 */
export async function closeOwner(owner: OwnerPage): Promise<void> {
  expect(owner.problems.filter((p) => !p.includes('Failed to load resource'))).toEqual([]);
  await owner.context.close();
}

/** Saves a screenshot named after the test, for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';
import { startGateway, tempDir } from '../helpers/gateway.js';
import { until } from '../helpers/wait.js';

/**
 * The approval popup page: real Chromium at the popup window's size (460×600), a real `pincer serve`, and calls
 * made over HTTP as an assistant makes them, which wait for the popup's answer. In a browser the page works with
 * the owner session; in the desktop app it works only through `window.pincer`, faked here as the preload would
 * expose it. Screenshots land in test-results/screenshots (popup-*.png); with PINCER_DOCS_SCREENSHOTS=1 the docs'
 * docs/screenshots/popup.png and dashboard.png are written too.
 */

const POPUP = { width: 460, height: 600 };
/** A browser test logs in, opens pages and waits on a real gateway: generous on a busy two-core machine. */
const SLOW = 120_000;
const DOCS = process.env.PINCER_DOCS_SCREENSHOTS === '1' ? resolve(import.meta.dirname, '../../docs/screenshots') : undefined;

/** The page's globals, typed loosely: the tests compile without the DOM library. */
interface PageWindow {
  document: { querySelectorAll(selector: string): { length: number } };
  __pwned?: number;
  __fake: { decisions: unknown[]; closed: number; loads: number };
}

let browser: Browser;
let gateway: DashboardGateway;
/** Browser contexts opened by the running test, closed after it (each logged in or not, as the test needs). */
let opened: { context: BrowserContext; problems: string[] }[] = [];

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

afterEach(async () => {
  // A page that threw or logged an error is a defect even when the scenario passed.
  const problems = opened.flatMap((o) => o.problems).filter((p) => !p.includes('Failed to load resource'));
  await Promise.all(opened.map((o) => o.context.close()));
  opened = [];
  expect(problems).toEqual([]);
});

/** A call the policy asks about, made over HTTP with the client token, and its approval once it waits. */
interface Asked {
  id: string;
  reason: string;
  /** The HTTP call's answer, once the owner decided (or the approval ended). */
  answer: Promise<{ status: number; body: Record<string, unknown> }>;
  /** Whether the HTTP call has come back yet. */
  settled(): boolean;
}

async function ask(tool: string, args: unknown): Promise<Asked> {
  const pending = async () =>
    ((await (await gateway.call('/approvals')).json()) as { approvals: { id: string; tool: string; reason: string }[] }).approvals;
  const before = new Set((await pending()).map((a) => a.id));
  let done = false;
  const answer = gateway.call(`/tools/${tool}/execute`, { json: args }).then(async (response) => {
    done = true;
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  });
  answer.catch(() => undefined); // a test that fails early must not add an unhandled rejection
  const approval = await until(async () => (await pending()).find((a) => a.tool === tool && !before.has(a.id)), `the ${tool} approval`);
  return { id: approval.id, reason: approval.reason, answer, settled: () => done };
}

/** Records what a page reports (uncaught errors, console errors) for the check after the test. */
function track(context: BrowserContext, page: Page): void {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  opened.push({ context, problems });
}

/** A browser that logged in through a one-time link, with its page resized to the popup window. */
async function owner(scheme: 'light' | 'dark' = 'light'): Promise<OwnerPage> {
  const signedIn = await openAsOwner(browser, gateway, scheme);
  opened.push({ context: signedIn.context, problems: signedIn.problems });
  await signedIn.page.setViewportSize(POPUP);
  return signedIn;
}

async function openPopup(page: Page, id: string): Promise<void> {
  await page.goto(`${gateway.url}/popup/${encodeURIComponent(id)}`);
}

/** The owner's own request from inside a signed-in page: same origin, session cookie, Origin header. */
async function ownerFetch(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: await response.json() };
    },
    { method, path, body },
  );
}

/** Keys that decide are held back for a moment after the popup appears; the page says when they count. */
async function keysArmed(page: Page): Promise<void> {
  await page.locator('main[data-keys="armed"]').waitFor({ state: 'attached' });
}

/** Nothing from the arguments became markup, and no script of theirs ran. */
async function expectNothingInjected(page: Page): Promise<void> {
  expect(await page.evaluate(() => (globalThis as unknown as PageWindow).document.querySelectorAll('img, iframe, object, embed').length)).toBe(0);
  expect(await page.evaluate(() => (globalThis as unknown as PageWindow).__pwned)).toBeUndefined();
}

describe('the popup in a browser with the owner session', () => {
  it('names the tool, the client and the reason of a waiting call, and Allow once lets the call finish with its result', async () => {
    mkdirSync(join(gateway.workspace, 'site'), { recursive: true });
    const asked = await ask('run_shell', {
      command: 'mkdir -p build && echo "built by the popup test" > build/stamp.txt && cat build/stamp.txt',
      cwd: 'site',
    });
    const { page } = await owner();
    await openPopup(page, asked.id);
    const card = page.getByRole('article', { name: 'run_shell' });
    await card.waitFor({ state: 'visible' });
    await card.getByText('default', { exact: true }).waitFor({ state: 'visible' });
    await card.getByText(asked.reason).waitFor({ state: 'visible' });
    await card.getByText(/expires in \d+:\d\d/).waitFor({ state: 'visible' });
    await card.getByText('"built by the popup test"').waitFor({ state: 'visible' });
    for (const [name, key] of [['Allow once', 'a'], ['Always allow…', 'Shift+A'], ['Deny', 'd']]) {
      expect(await card.getByRole('button', { name, exact: true }).getAttribute('aria-keyshortcuts')).toBe(key);
    }
    expect(await page.title()).toBe('run_shell from default? · Pincer');
    expect(asked.settled()).toBe(false);
    await screenshot(page, 'popup-shell-command-light');
    if (DOCS) {
      mkdirSync(DOCS, { recursive: true });
      await page.screenshot({ path: join(DOCS, 'popup.png') });
      const dashboard = await openAsOwner(browser, gateway, 'light');
      opened.push({ context: dashboard.context, problems: dashboard.problems });
      await dashboard.page.goto(`${gateway.url}/#/approvals`);
      await dashboard.page.getByRole('article', { name: /run_shell/ }).waitFor({ state: 'visible' });
      await dashboard.page.screenshot({ path: join(DOCS, 'dashboard.png') });
    }

    await card.getByRole('button', { name: 'Allow once' }).click();
    const answer = await asked.answer;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, result: { exit_code: 0 } });
    expect((answer.body.result as { output: string }).output).toContain('built by the popup test');
    await page.getByRole('heading', { name: 'Allowed once' }).waitFor({ state: 'visible' });
    await page.getByText('You can close this window.').waitFor({ state: 'visible' });
    await screenshot(page, 'popup-allowed');
  }, SLOW);

  it('Deny with a message, by keyboard, makes the waiting call come back denied with the message', async () => {
    const asked = await ask('run_shell', { command: 'frobnicate --all --force' });
    const { page } = await owner('dark');
    await openPopup(page, asked.id);
    await page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
    await keysArmed(page);
    await page.keyboard.press('m');
    const field = page.getByLabel(/Message for the assistant/);
    await field.waitFor({ state: 'visible' });
    await field.fill('Use the build script instead.');
    await screenshot(page, 'popup-deny-message-dark');
    await field.press('Enter');
    const answer = await asked.answer;
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ name: 'APPROVAL_DENIED', message: expect.stringContaining('Use the build script instead.') });
    await page.getByRole('heading', { name: 'Denied' }).waitFor({ state: 'visible' });
    await page.getByText(/reads your message/).waitFor({ state: 'visible' });
    await screenshot(page, 'popup-denied-dark');
  }, SLOW);

  it('Deny from the button makes the waiting call come back denied', async () => {
    const asked = await ask('file_write', { path: '.envrc', content: 'export PATH=./bin:$PATH\n' });
    const { page } = await owner();
    await openPopup(page, asked.id);
    const card = page.getByRole('article', { name: 'file_write' });
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    const answer = await asked.answer;
    expect(answer.status).toBe(403);
    expect((answer.body.error as { name: string }).name).toBe('APPROVAL_DENIED');
    await page.getByRole('heading', { name: 'Denied' }).waitFor({ state: 'visible' });
  }, SLOW);

  it('hostile arguments (a long command, 200 KB, HTML, ANSI codes) render as inert text, light and dark, and the page stays responsive', async () => {
    const longCommand = `tar czf backup.tgz ${Array.from({ length: 160 }, (_, i) => `src/module-${i}/index.ts`).join(' ')} && echo "$HOME done"`;
    const big = 'A'.repeat(200_000);
    const html = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const cases = [
      { name: 'long-command', asked: await ask('run_shell', { command: longCommand }), tool: 'run_shell' },
      { name: '200kb', asked: await ask('http_post', { url: 'https://93.184.215.14/upload', body: { data: big, note: html } }), tool: 'http_post' },
      { name: 'html-ansi', asked: await ask('run_shell', { command: `frobnicate --title '${html}' \x1b[31mred\x1b[0m` }), tool: 'run_shell' },
    ];
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = await owner(scheme);
      for (const { name, asked, tool } of cases) {
        await openPopup(page, asked.id);
        await page.getByRole('article', { name: tool }).waitFor({ state: 'visible' });
        await expectNothingInjected(page);
        if (name === 'html-ansi') {
          // The markup is there as text, and the escape bytes are spelled out and marked.
          await page.getByText('<img src=x onerror="window.__pwned=1">', { exact: false }).first().waitFor({ state: 'visible' });
          expect(await page.locator('mark', { hasText: '\\x1b' }).count()).toBe(2);
          await page.getByText(/holds invisible characters/).waitFor({ state: 'visible' });
        }
        if (name === '200kb') {
          const showAll = page.getByRole('button', { name: 'show all (200,000 characters)' });
          await showAll.waitFor({ state: 'visible' });
          await screenshot(page, `popup-${name}-${scheme}`);
          await showAll.click();
          await showAll.waitFor({ state: 'detached' });
          // Still answering: the whole string is on the page, in a scrolling area, and the buttons are in view.
          expect(await page.evaluate(() => 1 + 1)).toBe(2);
          await page.getByRole('button', { name: 'Allow once' }).waitFor({ state: 'visible' });
          await expectNothingInjected(page);
        } else {
          await screenshot(page, `popup-${name}-${scheme}`);
        }
      }
    }
    const { page } = await owner();
    for (const { asked } of cases) expect((await ownerFetch(page, 'POST', `/approvals/${asked.id}`, { decision: 'deny' })).status).toBe(200);
    for (const { asked } of cases) expect((await asked.answer).status).toBe(403);
  }, SLOW);

  it('an answered approval, an unknown id, and one answered elsewhere while open each say so plainly', async () => {
    const { page } = await owner();
    const answered = await ask('run_shell', { command: 'frobnicate --once' });
    expect((await ownerFetch(page, 'POST', `/approvals/${answered.id}`, { decision: 'deny' })).status).toBe(200);
    await openPopup(page, answered.id);
    await page.getByRole('heading', { name: 'Nothing to answer' }).waitFor({ state: 'visible' });
    expect(await page.getByText(/not waiting: it was answered, it expired/).count()).toBe(1);
    await screenshot(page, 'popup-answered');

    await openPopup(page, 'a_does-not-exist');
    await page.getByRole('heading', { name: 'Nothing to answer' }).waitFor({ state: 'visible' });

    const elsewhere = await ask('run_shell', { command: 'frobnicate --twice' });
    await openPopup(page, elsewhere.id);
    await page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
    expect((await ownerFetch(page, 'POST', `/approvals/${elsewhere.id}`, { decision: 'allow_once' })).status).toBe(200);
    await page.getByRole('heading', { name: 'No longer waiting' }).waitFor({ state: 'visible' });
    await page.getByText(/answered elsewhere/).waitFor({ state: 'visible' });
    await elsewhere.answer;
  }, SLOW);

  it('an approval that expires while the popup is open says it expired, and the call is refused', async () => {
    const { page } = await owner();
    expect((await ownerFetch(page, 'PATCH', '/settings', { approval_timeout_s: 5 })).status).toBe(200);
    try {
      const asked = await ask('run_shell', { command: 'frobnicate --late' });
      await openPopup(page, asked.id);
      await page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
      await page.getByRole('heading', { name: 'Expired' }).waitFor({ state: 'visible', timeout: 30_000 });
      await page.getByText('run_shell from default was not answered in time, so the call was refused.').waitFor({ state: 'visible' });
      const answer = await asked.answer;
      expect(answer.status).toBe(403);
      expect((answer.body.error as { name: string }).name).toBe('APPROVAL_TIMEOUT');
      await screenshot(page, 'popup-expired');
    } finally {
      await ownerFetch(page, 'PATCH', '/settings', { approval_timeout_s: 120 });
    }
  }, SLOW);
});

describe('the popup in a browser without the owner session', () => {
  it('says so, shows nothing of the call, and links to the dashboard login', async () => {
    const asked = await ask('run_shell', { command: 'frobnicate --secret-plan' });
    const context = await browser.newContext({ viewport: POPUP });
    const page = await context.newPage();
    track(context, page);
    await openPopup(page, asked.id);
    await page.getByRole('heading', { name: 'Sign in to answer' }).waitFor({ state: 'visible' });
    expect(await page.getByText(/secret-plan/).count()).toBe(0);
    // The gateway's own command, which works in any folder (test/server/cli/login-command.test.ts runs it).
    expect(await page.locator('code').textContent()).toBe(`node ${join(resolve(import.meta.dirname, '../..'), 'bin', 'pincer.js')} login-url --data-dir ${gateway.dataDir}`);
    await screenshot(page, 'popup-signed-out');
    await page.getByRole('link', { name: 'Open the dashboard to sign in' }).click();
    await page.getByRole('heading', { name: 'Log in with a one-time link' }).waitFor({ state: 'visible' });
    expect(asked.settled()).toBe(false);

    const { page: ownerPage } = await owner();
    await ownerFetch(ownerPage, 'POST', `/approvals/${asked.id}`, { decision: 'deny' });
    expect((await asked.answer).status).toBe(403);
  }, SLOW);
});

/** What the fake bridge holds: the approval it gives (null: none waits), and whether it refuses answers. */
interface BridgeSpec {
  approval: Record<string, unknown> | null;
  /** Wraps the arguments' `nested` this many levels deep (built in the page: too deep to send as JSON). */
  depth?: number;
  /** A shell command of this many characters, longer than the gateway accepts. */
  commandLength?: number;
  /** Each answer is refused with this error, after which the approval is gone. */
  refuse?: string;
}

/** Stands in for the desktop app's preload: `window.pincer` as electron/ipc-contract.ts's DesktopApi describes it. */
function installBridge(spec: BridgeSpec): void {
  const w = globalThis as unknown as Record<string, unknown>;
  const fake = { decisions: [] as unknown[], closed: 0, loads: 0, gone: false };
  const approval: Record<string, unknown> | null = spec.approval && {
    ...spec.approval,
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 120_000).toISOString(),
  };
  if (approval && spec.depth) {
    let nested: unknown = 'the bottom';
    for (let i = 0; i < spec.depth; i++) nested = { level: nested };
    approval.arguments = { ...(approval.arguments as object), nested };
  }
  if (approval && spec.commandLength) {
    approval.arguments = { ...(approval.arguments as object), command: `echo ${'x'.repeat(spec.commandLength - 5)}` };
  }
  w.__fake = fake;
  w.pincer = Object.freeze({
    approval: async () => {
      fake.loads++;
      return fake.gone ? null : approval;
    },
    decide: async (answer: { decision: string }) => {
      fake.decisions.push(answer);
      fake.gone = true;
      if (spec.refuse) return { ok: false, error: spec.refuse };
      return { ok: true, status: answer.decision === 'deny' ? 'denied' : 'allowed' };
    },
    close: () => {
      fake.closed++;
    },
  });
}

const bridgeApproval = {
  id: 'a_desktop-1',
  call_id: 'c_desktop-1',
  tool: 'run_shell',
  client: 'ollama',
  arguments: { command: 'git push --force origin main', cwd: '/home/me/project' },
  risk: 'dangerous',
  rule: 'shell:unknown-program',
  reason: 'git push changes a remote repository.',
  status: 'pending',
  decision: null,
  message: null,
  granted_rule: null,
  decided_at: null,
  decided_by: null,
  scopes: [
    { scope: 'exact', pattern: null, label: 'this exact call' },
    { scope: 'prefix', pattern: 'git push', label: 'commands starting with git push' },
  ],
};

describe('the popup in the desktop app (window.pincer, no session)', () => {
  /** A context with no session, the fake bridge installed before the page's scripts, and every request recorded. */
  async function desktopPopup(spec: BridgeSpec): Promise<{ page: Page; requests: string[] }> {
    const context = await browser.newContext({ viewport: POPUP });
    const page = await context.newPage();
    track(context, page);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    await page.addInitScript(installBridge, spec);
    await openPopup(page, 'ignored-by-the-desktop-page');
    return { page, requests };
  }

  const fake = (page: Page) => page.evaluate(() => (globalThis as unknown as PageWindow).__fake);
  /** The page asked the gateway for nothing: it loads its own files only. */
  const onlyItsOwnFiles = (requests: string[]) => requests.filter((path) => !path.startsWith('/assets/') && !path.startsWith('/popup/'));

  it('renders the approval from the bridge, decides through it by keyboard, and closes itself', async () => {
    const { page, requests } = await desktopPopup({ approval: bridgeApproval });
    const card = page.getByRole('article', { name: 'run_shell' });
    await card.waitFor({ state: 'visible' });
    await card.getByText('ollama', { exact: true }).waitFor({ state: 'visible' });
    await card.getByText('git push changes a remote repository.').waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'Close' }).waitFor({ state: 'visible' });
    await screenshot(page, 'popup-desktop');
    await keysArmed(page);
    await page.keyboard.press('a');
    await page.getByRole('heading', { name: 'Allowed once' }).waitFor({ state: 'visible' });
    await expect.poll(async () => (await fake(page)).closed, { timeout: 10_000 }).toBe(1);
    expect((await fake(page)).decisions).toEqual([{ decision: 'allow_once' }]);
    expect(onlyItsOwnFiles(requests)).toEqual([]);
  }, SLOW);

  it('always allow takes the scope picked in the picker', async () => {
    const { page } = await desktopPopup({ approval: bridgeApproval });
    await page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
    await keysArmed(page);
    await page.keyboard.press('Shift+A');
    await page.getByRole('radio', { name: /commands starting with git push/ }).check();
    await screenshot(page, 'popup-desktop-always');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Always allowed' }).waitFor({ state: 'visible' });
    expect((await fake(page)).decisions).toEqual([{ decision: 'allow_always', scope: 'prefix' }]);
  }, SLOW);

  it('deny with a message sends the message; Escape in the message field goes back, a second Escape closes', async () => {
    const { page } = await desktopPopup({ approval: bridgeApproval });
    await page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
    await keysArmed(page);
    await page.keyboard.press('m');
    const field = page.getByLabel(/Message for the assistant/);
    await field.fill('Not on main.');
    await field.press('Escape');
    await field.waitFor({ state: 'detached' });
    expect((await fake(page)).closed).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await fake(page)).closed, { timeout: 10_000 }).toBe(1);
    expect((await fake(page)).decisions).toEqual([]);

    const again = await desktopPopup({ approval: bridgeApproval });
    await again.page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
    await keysArmed(again.page);
    await again.page.keyboard.press('m');
    await again.page.getByLabel(/Message for the assistant/).fill('Not on main.');
    await again.page.keyboard.press('Enter');
    await again.page.getByRole('heading', { name: 'Denied' }).waitFor({ state: 'visible' });
    expect((await fake(again.page)).decisions).toEqual([{ decision: 'deny', message: 'Not on main.' }]);
  }, SLOW);

  it('no approval from the bridge, or an answer refused because it ended, shows a message', async () => {
    const none = await desktopPopup({ approval: null });
    await none.page.getByRole('heading', { name: 'Nothing to answer' }).waitFor({ state: 'visible' });
    await none.page.keyboard.press('Escape');
    await expect.poll(async () => (await fake(none.page)).closed, { timeout: 10_000 }).toBe(1);

    const refused = await desktopPopup({ approval: bridgeApproval, refuse: 'It was answered in the dashboard a moment ago.' });
    await refused.page.getByRole('button', { name: 'Deny', exact: true }).click();
    await refused.page.getByRole('heading', { name: 'No longer waiting' }).waitFor({ state: 'visible' });
    await refused.page.getByText('It was answered in the dashboard a moment ago.').waitFor({ state: 'visible' });
    expect((await fake(refused.page)).closed).toBe(0);
  }, SLOW);

  it('1,000-deep nesting, HTML and a 200 KB command from the bridge render as inert text without freezing', async () => {
    const hostile = {
      ...bridgeApproval,
      reason: '<img src=x onerror="window.__pwned=1"> is in the reason too',
      client: '<script>window.__pwned=2</script>',
    };
    const { page } = await desktopPopup({ approval: hostile, depth: 1_000, commandLength: 200_000 });
    await page.getByRole('article', { name: 'run_shell' }).waitFor({ state: 'visible' });
    await page.getByText('<script>window.__pwned=2</script>').waitFor({ state: 'visible' });
    await page.getByText(/Showing the first 20,000 of 200,000 characters/).waitFor({ state: 'visible' });
    await expectNothingInjected(page);
    await screenshot(page, 'popup-desktop-hostile');
    await page.getByRole('button', { name: 'Show all' }).click();
    await page.getByText(/Showing the first/).waitFor({ state: 'detached' });
    // The nesting starts folded below the top levels: each click opens one more.
    await page.getByRole('button', { name: '{ 1 keys }' }).first().click();
    await page.getByRole('button', { name: 'Allow once' }).waitFor({ state: 'visible' });
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
    await expectNothingInjected(page);
  }, SLOW);
});

describe('GET /popup/{id}', () => {
  it('is served with the dashboard’s CSP, without a session, and holds nothing of the approval', async () => {
    const response = await fetch(`${gateway.url}/popup/a_whatever%3Cscript%3E`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toContain('/assets/popup-');
    expect(html).not.toContain('a_whatever');
  });

  it('shows the not-built page before a build, and the popup once built, without a restart', async () => {
    const dir = tempDir('pincer-popup-build-');
    const tg = await startGateway({ dashboardDir: dir });
    try {
      expect(await (await fetch(`${tg.url}/popup/a_1`)).text()).toContain('the dashboard has not been built');
      writeFileSync(join(dir, 'popup.html'), '<!doctype html><title>Approval</title><script type="module" src="/assets/popup-abc.js"></script>');
      const built = await fetch(`${tg.url}/popup/a_1`);
      expect(await built.text()).toContain('/assets/popup-abc.js');
      expect(built.headers.get('content-security-policy')).toContain("default-src 'none'");
    } finally {
      await tg.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

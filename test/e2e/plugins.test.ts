import { existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';
import { runPincer } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';
import { writePlugin } from '../server/plugins/helpers.js';

/**
 * Plugins in the Sources view as their owner uses them: real Chromium, a real `pincer serve` (which also loads the bundled
 * investment plugin), plugin folders written into its data directory as a person would drop them in. Plugin
 * processes take a moment to start: every wait is on a condition (the gateway's GET /plugins, or the page).
 */

let browser: Browser;
let gateway: DashboardGateway;
let owner: OwnerPage | undefined;

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

afterEach(async () => {
  if (owner) await closeOwner(owner);
  owner = undefined;
});

const pluginsDir = () => join(gateway.dataDir, 'plugins');

interface ToolSpec {
  description?: string;
  parameters?: Record<string, unknown>;
  risk?: string;
  annotations?: Record<string, unknown>;
  /** The handler's body, with `args` and `ctx` in scope. */
  body?: string;
}

/** The manifest's `tools` for these tools: what a held plugin shows before any of its code runs. */
function declared(tools: Record<string, ToolSpec>): { name: string; risk: string; description?: string }[] {
  return Object.entries(tools).map(([name, t]) => ({ name, risk: t.risk ?? 'safe', ...(t.description && { description: t.description }) }));
}

/** An entry module defining these tools through `pincer/plugin`. */
function entry(tools: Record<string, ToolSpec>): string {
  const defs = Object.entries(tools).map(([name, t]) => {
    const declared = {
      name,
      description: t.description ?? `Test tool ${name}.`,
      parameters: t.parameters ?? { type: 'object', properties: { text: { type: 'string' } } },
      risk: t.risk ?? 'safe',
      ...(t.annotations && { annotations: t.annotations }),
    };
    return `defineTool({ ...${JSON.stringify(declared)}, handler: async (args, ctx) => { ${t.body ?? 'return { ok: true };'} } })`;
  });
  return `import { definePlugin, defineTool } from 'pincer/plugin';\nexport default definePlugin({ tools: [${defs.join(',\n')}] });\n`;
}

interface PluginState {
  name: string;
  status: string;
  reason: string | null;
}

async function plugin(name: string): Promise<PluginState | undefined> {
  const answer = (await (await gateway.call('/plugins')).json()) as { plugins: PluginState[] };
  return answer.plugins.find((p) => p.name === name);
}

/** Waits until the gateway reports the plugin in this status (it loads in its own process, in the background). */
async function reaches(name: string, status: string): Promise<PluginState> {
  return until(async () => {
    const found = await plugin(name);
    return found?.status === status && found;
  }, `plugin ${name} to be ${status}`, 30_000, 50);
}

const callTool = async (name: string, args: Record<string, unknown> = {}) => {
  const response = await gateway.call(`/tools/${name}/execute`, { json: args });
  return { status: response.status, body: (await response.json()) as { success?: boolean; result?: unknown; error?: { name: string } } };
};

/** Opens a view; `plugins`, the old address of the plugins, lands on the Sources view showing plugins only. */
async function open(view: string, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
  owner = await openAsOwner(browser, gateway, scheme);
  await owner.page.goto(`${gateway.url}/#/${view}`);
  await owner.page.getByRole('heading', { level: 1, name: view === 'plugins' ? 'Tool sources' : /./ }).waitFor({ state: 'visible' });
  return owner.page;
}

const card = (page: Page, name: string) => page.getByRole('article', { name, exact: true });
/** The card's status, as its header reads it: one of the words every kind of source shares ("held · new"). */
const statusOf = async (plugin: Locator) =>
  /\b(running|held · new|held · changed|disabled|failed|restarting|starting|stopped)\b/.exec(await plugin.locator('header').innerText())?.[1];
/** Waits until the card shows this status: an action that starts a plugin's process takes a moment. */
const becomes = (plugin: Locator, status: string) => expect.poll(() => statusOf(plugin), { timeout: 30_000 }).toBe(status);

// Each scenario starts plugin processes and the CLI: on a busy machine that takes longer than a page's work.
describe('plugins in the Sources view', { timeout: 90_000 }, () => {
  it('lists the bundled investment plugin as running and a plugin written with `pincer plugin new`; key 8 opens it', async () => {
    const written = await runPincer(['plugin', 'new', 'hello-world', '--data-dir', gateway.dataDir]);
    expect(written.code, written.stderr).toBe(0);
    await reaches('hello-world', 'running');
    await reaches('investment', 'running');

    const page = await open('live');
    await page.keyboard.press('8');
    await page.getByRole('heading', { level: 1, name: 'Tool sources' }).waitFor({ state: 'visible' });
    expect(page.url()).toMatch(/#\/sources$/);

    const investment = card(page, 'investment');
    await investment.waitFor({ state: 'visible' });
    expect(await statusOf(investment)).toBe('running');
    await investment.getByText('bundled with Pincer').waitFor();
    for (const tool of ['stock_quote', 'index_quote', 'search_stock', 'stock_kline']) await investment.getByText(tool, { exact: true }).waitFor();
    await investment.getByText('hq.sinajs.cn').waitFor();
    // Bundled: it can be turned off, never deleted.
    await investment.getByRole('button', { name: /^Disable/ }).waitFor();
    expect(await investment.getByRole('button', { name: /^Remove/ }).count()).toBe(0);

    const hello = card(page, 'hello-world');
    expect(await statusOf(hello)).toBe('running');
    await hello.getByText('hello_world_greet', { exact: true }).waitFor();
    await page.getByText(/pincer plugin new my-tools --data-dir/).waitFor();
    await screenshot(page, 'plugins-running');
  });

  it('a new plugin shows what accepting it means — manifest, permissions, files with sizes, declared tools — with Accept; accepting it makes its tool callable', async () => {
    const tools = { greeter_hello: { description: 'Says hello back.', body: "ctx.logger.warn('greeting ' + args.text); return { hi: args.text };" } };
    writePlugin(
      pluginsDir(),
      'greeter',
      { 'index.js': entry(tools), 'lib/words.js': 'export const hello = "hi";\n' },
      { version: '1.2.0', permissions: { hosts: ['api.example.com'] }, tools: declared(tools) },
    );
    await reaches('greeter', 'new');
    expect((await callTool('greeter_hello', { text: 'x' })).body.error?.name).toBe('TOOL_HELD');

    const page = await open('plugins');
    // The old address shows the plugins, and says so in the address and the filter.
    expect(page.url()).toMatch(/#\/sources\/plugins$/);
    expect(await page.getByRole('link', { name: /^Plugins/ }).getAttribute('aria-current')).toBe('true');
    const greeter = card(page, 'greeter');
    await greeter.waitFor({ state: 'visible' });
    expect(await statusOf(greeter)).toBe('held · new');
    await greeter.getByText('plugin', { exact: true }).waitFor();
    await greeter.getByText('v1.2.0').waitFor();
    await greeter.getByText('entry index.js').waitFor();
    await greeter.getByText('greeter_hello', { exact: true }).waitFor();
    await greeter.getByText('Says hello back.').waitFor();
    await greeter.getByText('off until you accept it').waitFor();
    await greeter.getByText(/Accepting runs its code for the first time, as it is now/).waitFor();
    await greeter.getByText('Accepting lets it').waitFor();
    await greeter.getByText('api.example.com').waitFor();
    await greeter.getByText(/none of its code runs, and its tools stay off, until the owner accepts it/).waitFor();
    const files = greeter.locator('details.files');
    await files.getByText('Files you accept').waitFor();
    await files.getByText(/\(4 files, [\d.]+ K?B\)/).waitFor();
    for (const path of ['index.js', 'lib/words.js', 'package.json', 'plugin.json']) await files.getByText(path, { exact: true }).waitFor();
    // Waiting for the owner: listed before the running ones.
    const names = await page.getByRole('article').evaluateAll((cards) => cards.map((c) => c.querySelector('h2')?.textContent));
    expect(names[0]).toBe('greeter');
    await screenshot(page, 'plugins-new');
    await page.setViewportSize({ width: 420, height: 900 });
    await greeter.scrollIntoViewIfNeeded();
    await screenshot(page, 'plugins-new-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });

    await greeter.getByRole('button', { name: /^Accept/ }).click();
    await becomes(greeter, 'running');
    expect(await greeter.getByRole('button', { name: /^Accept/ }).count()).toBe(0);
    expect(await callTool('greeter_hello', { text: 'hi' })).toMatchObject({ status: 200, body: { success: true, result: { hi: 'hi' } } });

    // Its warnings show on its card.
    await page.getByRole('button', { name: 'Rescan plugin folders' }).click();
    await greeter.getByText('Recent warnings and errors').click();
    await greeter.getByText('greeting hi').waitFor();
    await screenshot(page, 'plugins-accepted');
  });

  it('a changed plugin shows the diff of its declared tools, files and permissions, with Accept change and Disable', async () => {
    const v1 = {
      weather_now: {
        description: 'Current weather for a city.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      weather_alerts: { description: 'Weather alerts.' },
    };
    writePlugin(pluginsDir(), 'weather', { 'index.js': entry(v1) }, { permissions: { hosts: ['api.weather.example'] }, tools: declared(v1) });
    await reaches('weather', 'new');
    const page = await open('plugins');
    const weather = card(page, 'weather');
    await weather.getByRole('button', { name: /^Accept/ }).click();
    await becomes(weather, 'running');
    expect((await callTool('weather_now', { city: 'Oslo' })).status).toBe(200);

    const v2 = {
      weather_now: {
        description: 'Current weather for a city, in the units asked for.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, units: { type: 'string', enum: ['metric', 'imperial'] } },
          required: ['city', 'units'],
        },
      },
      weather_week: { description: 'A forecast for the week.' },
    };
    writePlugin(pluginsDir(), 'weather', { 'index.js': entry(v2) }, { version: '1.1.0', permissions: { hosts: ['api.weather.example', 'tracker.example'] }, tools: declared(v2) });
    await reaches('weather', 'changed');
    expect((await callTool('weather_now', { city: 'Oslo' })).status).toBe(409);

    await page.getByRole('button', { name: 'Rescan plugin folders' }).click();
    await becomes(weather, 'held · changed');
    const diff = weather.getByRole('region', { name: 'What changed since you accepted it' });
    await diff.waitFor({ state: 'visible' });
    const text = await diff.innerText();
    expect(text).toMatch(/New tools\s+weather_week/);
    expect(text).toMatch(/Removed tools\s+weather_alerts/);
    expect(text).toContain('Current weather for a city, in the units asked for.');
    expect(text).toMatch(/Changed files\s+index\.js\s+plugin\.json/);
    expect(text).toMatch(/hosts:\s*tracker\.example/);
    await weather.getByRole('button', { name: /^Accept change/ }).waitFor();
    await weather.getByRole('button', { name: /^Disable/ }).waitFor();
    await weather.scrollIntoViewIfNeeded();
    await screenshot(page, 'plugins-changed');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'plugins-changed-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Disabled, it stays off; enabled again, the change still waits for the owner.
    await weather.getByRole('button', { name: /^Disable/ }).click();
    await becomes(weather, 'disabled');
    await weather.getByRole('button', { name: /^Enable/ }).click();
    await becomes(weather, 'held · changed');
    expect((await callTool('weather_week')).status).toBe(409);

    await weather.getByRole('button', { name: /^Accept change/ }).click();
    await becomes(weather, 'running');
    expect(await callTool('weather_week')).toMatchObject({ status: 200, body: { success: true } });
    expect((await callTool('weather_alerts')).status).toBe(404);
  });

  it('a plugin with a syntax error shows as failed with the reason once accepted, and can be removed', async () => {
    const dir = writePlugin(pluginsDir(), 'broken', { 'index.js': 'export default definePlugin({ tools: [ }' });
    await reaches('broken', 'new');
    const page = await open('plugins');
    const broken = card(page, 'broken');
    await broken.getByRole('button', { name: /^Accept/ }).click();
    await becomes(broken, 'failed');
    await broken.getByText(/SyntaxError|Unexpected token/).first().waitFor();
    await screenshot(page, 'plugins-failed');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'plugins-failed-dark');

    await broken.getByRole('button', { name: 'Remove broken' }).click();
    await broken.getByRole('button', { name: 'Delete its folder' }).click();
    await broken.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Removed the plugin broken.' }).waitFor({ state: 'attached' });
    expect(existsSync(dir)).toBe(false);
    expect(await plugin('broken')).toBeUndefined();
  });

  it('a plugin with a link out of its folder shows as invalid, naming the link, with no Accept', async () => {
    const dir = writePlugin(pluginsDir(), 'linked', { 'index.js': entry({}) });
    symlinkSync(join(gateway.dataDir, 'owner-secret'), join(dir, 'readme.txt'));
    await reaches('linked', 'failed');
    const page = await open('plugins');
    const linked = card(page, 'linked');
    await linked.getByText(`readme.txt is a link to ${join(gateway.dataDir, 'owner-secret')}, outside the plugin folder`, { exact: false }).waitFor();
    expect(await linked.getByRole('button', { name: /^Accept/ }).count()).toBe(0);
    await linked.scrollIntoViewIfNeeded();
    await screenshot(page, 'plugins-invalid-link');
    rmSync(dir, { recursive: true, force: true });
    await until(async () => (await plugin('linked')) === undefined, 'the folder gone', 30_000);
  });

  it('a plugin tool whose risk Pincer raised says why, and its approval card names the plugin', async () => {
    const tools = { cleaner_sweep: { description: 'Deletes old build output.', annotations: { destructiveHint: true }, body: 'return { swept: true };' } };
    writePlugin(pluginsDir(), 'cleaner', { 'index.js': entry(tools) }, { tools: declared(tools) });
    await reaches('cleaner', 'new');
    const page = await open('plugins');
    const cleaner = card(page, 'cleaner');
    await cleaner.getByRole('button', { name: /^Accept/ }).click();
    await becomes(cleaner, 'running');
    // Its code marks it destructive: it asks, though it says it is safe.
    await cleaner.getByText('Raised from safe because it is marked destructive.').waitFor();
    await screenshot(page, 'plugins-raised-risk');

    const waiting = callTool('cleaner_sweep');
    await page.keyboard.press('2');
    const approval = page.getByRole('article', { name: /cleaner_sweep/ });
    await approval.waitFor({ state: 'visible' });
    await approval.getByText(/Tool from plugin cleaner/).waitFor();
    await screenshot(page, 'plugins-approval-source');
    await approval.getByRole('button', { name: /^Allow once/ }).click();
    expect(await waiting).toMatchObject({ status: 200, body: { success: true, result: { swept: true } } });
  });

  it('a built-in tool\'s approval card says nothing of where it comes from', async () => {
    const page = await open('approvals');
    const target = join(gateway.workspace, 'scratch.txt');
    writeFileSync(target, 'x');
    const waiting = gateway.call('/tools/file_delete/execute', { json: { path: target } });
    const approval = page.getByRole('article', { name: /file_delete/ });
    await approval.waitFor({ state: 'visible' });
    expect(await approval.getByText(/Tool from/).count()).toBe(0);
    await approval.getByRole('button', { name: /^Deny/ }).first().click();
    expect((await waiting).status).toBe(403);
  });

  it('a folder of yours named like a bundled plugin is shown as not loaded, with why', async () => {
    const dir = join(pluginsDir(), 'investment');
    writePlugin(pluginsDir(), 'investment', { 'index.js': entry({ borrowed_trust: {} }) });
    try {
      const page = await open('plugins');
      const notice = page.getByRole('region', { name: 'Folders not loaded' });
      await notice.waitFor({ state: 'visible', timeout: 30_000 });
      await notice.getByText(dir, { exact: true }).waitFor();
      await notice.getByText(/bundled with Pincer.*rename the folder/).waitFor();
      expect(await statusOf(card(page, 'investment'))).toBe('running');
      expect((await callTool('borrowed_trust')).status).toBe(404);
      await screenshot(page, 'plugins-ignored-folder');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await until(async () => ((await (await gateway.call('/plugins')).json()) as { ignored: unknown[] }).ignored.length === 0, 'the folder gone from the list', 30_000);
    }
  });

  it('with no plugins, says how to write one', async () => {
    owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    const folder = join(gateway.dataDir, 'plugins');
    await page.route(`${gateway.url}/plugins`, (route) =>
      route.request().method() === 'GET' ? route.fulfill({ json: { plugins: [], count: 0, folder, ignored: [] } }) : route.continue(),
    );
    // The list of every source says the same: no plugin (the bundled one is left out as if there were none).
    await page.route(`${gateway.url}/sources`, async (route) => {
      const answer = (await (await route.fetch()).json()) as { sources: { kind: string }[] };
      await route.fulfill({ json: { sources: answer.sources.filter((s) => s.kind !== 'plugin') } });
    });
    await page.goto(`${gateway.url}/#/plugins`);
    await page.getByText('No plugins yet').waitFor({ state: 'visible' });
    await page.getByText(/pincer plugin new my-tools --data-dir/).waitFor();
    await page.getByText(folder, { exact: true }).waitFor();
    await screenshot(page, 'plugins-empty');
  });
});

import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';
import { tempDir } from '../helpers/gateway.js';
import { until } from '../helpers/wait.js';
import { writePlugin } from '../server/plugins/helpers.js';

/**
 * Plugins and imported MCP servers in one list: real Chromium, a real `pincer serve` with its bundled investment
 * plugin, a plugin dropped into its folder (held back, new) and the stub MCP server from config.json (running, one
 * tool flagged). The list mixes both kinds, what waits for the owner first; the filter per kind lives in the address.
 */

const STUB = resolve(import.meta.dirname, '../server/mcp/fixtures/stub-server.mjs');
const work = tempDir('pincer-e2e-sources-');

let browser: Browser;
let gateway: DashboardGateway;
let owner: OwnerPage | undefined;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

beforeAll(async () => {
  writeFileSync(join(work, 'description.txt'), 'Echoes the text it is given.');
  writeFileSync(join(work, 'pids.txt'), '');
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
  const env = { STUB_DESCRIPTION_FILE: join(work, 'description.txt'), STUB_PIDS_FILE: join(work, 'pids.txt') };
  writeFileSync(join(gateway.dataDir, 'config.json'), JSON.stringify({ mcp_servers: { stub: { command: process.execPath, args: [STUB], env } } }));
  await gateway.restart();
  const tool = { name: 'notes_add', description: 'Adds a note.', risk: 'safe' };
  const entry = `import { definePlugin, defineTool } from 'pincer/plugin';
export default definePlugin({ tools: [defineTool({ ...${JSON.stringify(tool)}, parameters: { type: 'object', properties: {} }, handler: async () => ({ ok: true }) })] });
`;
  writePlugin(join(gateway.dataDir, 'plugins'), 'notes', { 'index.js': entry }, { tools: [tool] });
  await until(async () => {
    const { sources } = (await (await gateway.call('/sources')).json()) as Json;
    const status = (kind: string, name: string) => sources.find((s: Json) => s.kind === kind && s.name === name)?.status;
    return status('plugin', 'notes') === 'held' && status('mcp', 'stub') === 'running' && status('plugin', 'investment') === 'running';
  }, 'the plugins and the server settled', 60_000, 100);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  rmSync(work, { recursive: true, force: true });
});

afterEach(async () => {
  if (owner) await closeOwner(owner);
  owner = undefined;
});

async function open(address: string): Promise<Page> {
  owner = await openAsOwner(browser, gateway);
  await owner.page.goto(`${gateway.url}/#/${address}`);
  await owner.page.getByRole('heading', { level: 1, name: 'Tool sources' }).waitFor({ state: 'visible' });
  return owner.page;
}

const card = (page: Page, name: string) => page.getByRole('article', { name, exact: true });
/** The sources listed, in order, each as "<kind> <name>" as its header's first words read. */
const listed = (page: Page) => page.locator('ul.sources > li article').evaluateAll((cards) => cards.map((c) => `${c.querySelector('.kind')?.textContent} ${c.querySelector('h2')?.textContent}`));
const filterLink = (page: Page, label: string) => page.getByRole('navigation', { name: 'Show sources of a kind' }).getByRole('link', { name: new RegExp(`^${label}`) });
const current = (link: Locator) => link.getAttribute('aria-current');

describe('one list of tool sources', { timeout: 90_000 }, () => {
  it('lists plugins and MCP servers together, each saying its kind, what waits for the owner first, in one status vocabulary', async () => {
    const page = await open('sources');
    await card(page, 'stub').waitFor();
    expect(await listed(page)).toEqual(['plugin notes', 'MCP server stub', 'plugin investment']);

    // One vocabulary: the held plugin and the server's flagged tool read "held", each with why.
    expect(await card(page, 'notes').locator('header').innerText()).toContain('held · new');
    expect(await card(page, 'stub').locator('header').innerText()).toContain('running');
    const flagged = card(page, 'stub').getByRole('listitem').filter({ has: page.getByText('add_numbers', { exact: true }) });
    expect(await flagged.locator('.line').innerText()).toContain('held · flagged');
    // The parts both kinds share: a tool list with the same heading, the same accept control.
    await card(page, 'notes').getByRole('region', { name: 'Tools of notes' }).getByText('off until you accept it').waitFor();
    await card(page, 'stub').getByRole('region', { name: 'Tools of stub' }).getByText(/held back until you accept/).waitFor();
    await card(page, 'notes').getByRole('button', { name: 'Accept notes' }).waitFor();
    await card(page, 'stub').getByRole('button', { name: /^Accept all waiting \(\d+\) of stub$/ }).waitFor();

    await page.getByText('2 plugins, 1 MCP server, 2 running, 2 waiting for you').waitFor();
    // Each filter says how many it shows; what waits for the owner is said too.
    expect(await filterLink(page, 'All').innerText()).toMatch(/All\s*3/);
    expect(await filterLink(page, 'Plugins').innerText()).toMatch(/Plugins\s*2/);
    expect(await filterLink(page, 'MCP servers').innerText()).toMatch(/MCP servers\s*1/);
    await filterLink(page, 'Plugins').getByText('(1 waiting for you)').waitFor({ state: 'attached' });
    expect(await current(filterLink(page, 'All'))).toBe('true');
    // Both ways of adding a source are offered.
    await page.getByRole('region', { name: 'Add a plugin' }).waitFor();
    await page.getByRole('form', { name: 'Add a server' }).waitFor();
    await screenshot(page, 'sources-mixed');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'sources-mixed-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 420, height: 900 });
    expect(await page.getByRole('main').evaluate((main) => main.scrollWidth <= main.clientWidth)).toBe(true);
    await screenshot(page, 'sources-mixed-narrow');
  });

  it('the filter shows one kind at a time, keeps it in the address, and Back returns to the one before', async () => {
    const page = await open('sources');
    await card(page, 'stub').waitFor();

    await filterLink(page, 'MCP servers').click();
    await expect.poll(() => page.url()).toMatch(/#\/sources\/mcp$/);
    await expect.poll(() => listed(page)).toEqual(['MCP server stub']);
    expect(await current(filterLink(page, 'MCP servers'))).toBe('true');
    await page.getByText('1 MCP server, 1 running, 1 waiting for you').waitFor();
    // What only plugins have is gone with them: their folder notice, their rescan, their help.
    expect(await page.getByRole('button', { name: 'Rescan plugin folders' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Add a plugin' }).count()).toBe(0);
    await page.getByRole('form', { name: 'Add a server' }).waitFor();
    await screenshot(page, 'sources-filter-mcp');

    await filterLink(page, 'Plugins').click();
    await expect.poll(() => page.url()).toMatch(/#\/sources\/plugins$/);
    await expect.poll(() => listed(page)).toEqual(['plugin notes', 'plugin investment']);
    expect(await page.getByRole('form', { name: 'Add a server' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Rescan plugin folders' }).waitFor();

    await page.goBack();
    await expect.poll(() => listed(page)).toEqual(['MCP server stub']);
    // Reloading keeps the filter the address names.
    await page.reload();
    await card(page, 'stub').waitFor();
    expect(await listed(page)).toEqual(['MCP server stub']);
  });

  it('the old addresses of the plugins and the MCP servers land on the list filtered to their kind', async () => {
    const page = await open('plugins');
    expect(page.url()).toMatch(/#\/sources\/plugins$/);
    await expect.poll(() => listed(page)).toEqual(['plugin notes', 'plugin investment']);
    await page.goto(`${gateway.url}/#/mcp`);
    await expect.poll(() => page.url()).toMatch(/#\/sources\/mcp$/);
    await expect.poll(() => listed(page)).toEqual(['MCP server stub']);
    expect(await current(filterLink(page, 'MCP servers'))).toBe('true');
    // The nav has one entry for both, current on either address.
    expect(await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Sources' }).getAttribute('aria-current')).toBe('page');
  });

  it('an action on one kind leaves the other as it is: accepting the plugin runs it, the server still waits', async () => {
    const page = await open('sources');
    const notes = card(page, 'notes');
    await notes.getByRole('button', { name: 'Accept notes' }).click();
    await page.getByRole('status').filter({ hasText: 'Accepted the plugin notes.' }).waitFor({ state: 'attached' });
    await expect.poll(async () => /\brunning\b/.test(await notes.locator('header').innerText()), { timeout: 30_000 }).toBe(true);
    expect(await (await gateway.call('/tools/notes_add/execute', { json: {} })).json()).toMatchObject({ success: true });
    // The server's flagged tool still waits, and the server, the only one waiting now, leads the list.
    expect(await card(page, 'stub').getByRole('button', { name: /^Accept all waiting/ }).count()).toBe(1);
    await expect.poll(() => listed(page)).toEqual(['MCP server stub', 'plugin investment', 'plugin notes']);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';

/**
 * The catalogue among the MCP servers of the Sources view: real Chromium and a real `pincer serve` whose only shared folder is its
 * workspace. One click on a well-known server fills the add form with its pinned command line; adding a uvx one on a
 * machine without uv leaves it failed, its card saying uvx was not found and where Pincer looked.
 */

let browser: Browser;
let gateway: DashboardGateway;
let owner: OwnerPage | undefined;

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
});
afterAll(async () => {
  if (owner) await closeOwner(owner);
  await browser?.close();
  await gateway?.close();
});

describe('the catalogue in the Sources view', { timeout: 90_000 }, () => {
  it('one click fills the form with the pinned command (the filesystem server pointed at the shared folder); a uvx server added from it says uvx is not found', async () => {
    owner = await openAsOwner(browser, gateway);
    const page = owner.page;
    await page.goto(`${gateway.url}/#/mcp`);
    const catalog = page.getByRole('region', { name: 'Well-known servers' });
    await catalog.getByText('npx @modelcontextprotocol/server-memory 2026.8.31').waitFor();
    for (const title of ['Filesystem', 'Memory', 'Everything', 'Sequential thinking', 'Fetch', 'Git', 'Serena']) {
      await catalog.getByRole('button', { name: title, exact: true }).waitFor();
    }
    await screenshot(page, 'mcp-catalog');

    const form = page.getByRole('form', { name: 'Add a server' });
    await catalog.getByRole('button', { name: 'Filesystem', exact: true }).click();
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('filesystem');
    // The name field has the focus: the owner reviews, then adds.
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id)).toBe('server-name');
    expect(await form.getByLabel('Command', { exact: true }).inputValue()).toBe('npx');
    expect((await form.getByLabel(/^Arguments/).inputValue()).split('\n')).toEqual(['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', gateway.workspace]);

    await catalog.getByRole('button', { name: 'Git', exact: true }).click();
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('git');
    expect(await form.getByLabel('Command', { exact: true }).inputValue()).toBe('uvx');
    await form.getByRole('button', { name: 'Add server' }).click();

    const card = page.getByRole('article', { name: 'git', exact: true });
    await expect.poll(async () => /\bfailed\b/.test(await card.locator('header').innerText()), { timeout: 30_000 }).toBe(true);
    await card.getByText(/the command "uvx" was not found on the PATH \(searched: .+\); install it/).waitFor();
    await card.getByText('mcp-server-git 2026.10.19 (pinned)').waitFor();
    const saved = JSON.parse(readFileSync(join(gateway.dataDir, 'config.json'), 'utf8')).mcp_servers;
    expect(saved.git).toEqual({ command: 'uvx', args: ['--from', 'mcp-server-git==2026.10.19', 'mcp-server-git'] });
    await screenshot(page, 'mcp-catalog-added');
  });
});

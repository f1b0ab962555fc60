import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';

/**
 * The Settings view changing what used to be config.json only: the history's limits (with what a change would delete
 * shown before it is saved, and nothing deleted until the owner confirms) and the token-less Ollama proxy. Real
 * Chromium against a real `pincer serve`; screenshots in light and dark.
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
  if (owner) {
    expect(owner.problems.filter((p) => !p.includes('Failed to load resource'))).toEqual([]);
    await owner.context.close();
    owner = undefined;
  }
});

async function open(view: string): Promise<Page> {
  owner = await openAsOwner(browser, gateway, 'light');
  await owner.page.goto(`${gateway.url}/#/${view}`);
  return owner.page;
}

/** Both colour schemes of the page as it is now. */
async function screenshots(page: Page, name: string): Promise<void> {
  await screenshot(page, `${name}-light`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

const configJson = () => JSON.parse(readFileSync(join(gateway.dataDir, 'config.json'), 'utf8'));

async function ownerGet(page: Page, path: string): Promise<unknown> {
  return page.evaluate(async (path) => (await fetch(path)).json(), path);
}

describe('history limits', () => {
  it('shows what a lower limit would delete before saving, and after saving deletes nothing until confirmed', async () => {
    for (let i = 0; i < 110; i++) {
      expect((await gateway.call('/tools/calculate/execute', { json: { expression: `${i} + 1` } })).status).toBe(200);
    }
    const page = await open('settings');
    const history = page.getByRole('region', { name: 'History' });
    await history.getByText('the last 90 days', { exact: true }).waitFor();

    await history.getByLabel('and at most').fill('100');
    const preview = history.getByTestId('history-preview');
    await preview.getByText('10 calls are outside these limits. Saving deletes nothing yet: you then confirm, or export them first.').waitFor();
    await history.scrollIntoViewIfNeeded();
    await screenshots(page, 'settings-history-preview');

    await history.getByRole('button', { name: 'Save' }).click();
    await history.getByText('10 calls are outside the limit. Nothing is deleted until you confirm.').waitFor();
    await history.getByText('the last 90 days and at most 100 calls', { exact: true }).waitFor();
    expect(configJson()).toEqual({ history: { retention_days: 90, max_rows: 100 } });
    const settings = (await ownerGet(page, '/settings')) as { history: { pruning_confirmed: boolean; prunable: number; pruned: number } };
    expect(settings.history).toMatchObject({ pruning_confirmed: false, prunable: 10, pruned: 0 });
    await screenshots(page, 'settings-history-waiting');

    await history.getByRole('button', { name: 'Allow pruning (delete 10 old calls)' }).click();
    await history.getByText('Nothing to delete: every call is within the limit.').waitFor();
    await history.getByText('10 calls deleted since the gateway started.').waitFor();
  });
});

describe('token-less Ollama proxy', () => {
  it('is turned on for a picked client with a plain warning, in force at once, and turned off again', async () => {
    const page = await open('settings');
    const created = await page.evaluate(async () => (await fetch('/clients', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"lm-desk"}' })).status);
    expect(created).toBe(201);
    const section = page.getByRole('region', { name: 'Ollama-compatible proxy without a token' });
    const picker = section.getByLabel('Acts as client');
    await picker.locator('option', { hasText: 'lm-desk' }).waitFor({ state: 'attached' });
    expect(await picker.locator('option').allTextContents()).toEqual(['ollama-app', 'lm-desk']);
    expect((await fetch(`${gateway.url}/api/tags`)).status).toBe(401);

    await section.getByLabel('Answer /api/* without a token').check();
    await picker.selectOption('lm-desk');
    await section.getByText('Any program on this computer can then use the proxy as lm-desk, with its tools, without a token.', { exact: false }).waitFor();
    await section.scrollIntoViewIfNeeded();
    await screenshots(page, 'settings-ollama-tokenless');
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByText('✓ Saved').waitFor();
    expect(configJson()).toMatchObject({ ollama_proxy: { tokenless: true, client: 'lm-desk' } });
    // No token, and not refused for it (no model server runs here, so what answers is the upstream's absence).
    expect((await fetch(`${gateway.url}/api/tags`)).status).not.toBe(401);
    expect((await fetch(`${gateway.url}/tools`)).status).toBe(401);

    await section.getByLabel('Answer /api/* without a token').uncheck();
    await expect(section.getByText('Any program on this computer').count()).resolves.toBe(0);
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByText('✓ Saved').waitFor();
    expect(configJson()).toMatchObject({ ollama_proxy: { tokenless: false, client: 'lm-desk' } });
    expect((await fetch(`${gateway.url}/api/tags`)).status).toBe(401);
  });
});

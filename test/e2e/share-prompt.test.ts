import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../server/version.js';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';

/**
 * A gateway started inside its own package (`npm start` in a checkout) shares no folder: the dashboard asks which
 * folders to share on every view, refuses Pincer's own folder with the gateway's reason, and shares the one the
 * owner types, after which the file tools work there. Real Chromium, a real `pincer serve`.
 */

let browser: Browser;
let gateway: DashboardGateway;
let owner: OwnerPage | undefined;

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway({ cwd: PACKAGE_ROOT })]);
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});
afterEach(async () => {
  if (owner) await closeOwner(owner);
  owner = undefined;
});

describe('the dashboard asks which folders to share when none is', () => {
  it('shows the prompt on the first view, refuses the package folder, and shares a folder the owner types', async () => {
    owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    const prompt = page.getByRole('region', { name: 'Which folders should Pincer share?' });
    await prompt.waitFor({ state: 'visible' });
    await expect.poll(() => prompt.textContent()).toContain(`the working folder ${PACKAGE_ROOT} is Pincer's own package folder`);
    await screenshot(page, 'share-prompt');

    // It follows the owner to other views, and links to the roots editor in Settings.
    await page.goto(`${gateway.url}/#/tools`);
    await prompt.waitFor({ state: 'visible' });
    await prompt.getByRole('link', { name: 'More folders in Settings' }).click();
    await page.getByRole('heading', { name: 'Folders file tools may use' }).waitFor({ state: 'visible' });
    expect(await prompt.count()).toBe(0);
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id)).toBe('roots-add');
    await screenshot(page, 'share-prompt-settings');

    await page.goto(`${gateway.url}/#/live`);
    const input = prompt.getByRole('textbox', { name: 'Folder to share (an absolute path)' });
    await input.fill(join(PACKAGE_ROOT, 'plugins'));
    await prompt.getByRole('button', { name: 'Share folder' }).click();
    const refusal = prompt.getByRole('alert');
    await refusal.waitFor({ state: 'visible' });
    expect(await refusal.textContent()).toContain("it is Pincer's bundled plugins folder");
    await screenshot(page, 'share-prompt-refused');

    const workspace = realpathSync(gateway.workspace);
    await input.fill(workspace);
    await prompt.getByRole('button', { name: 'Share folder' }).click();
    await prompt.waitFor({ state: 'detached' });
    await screenshot(page, 'share-prompt-shared');

    const settings = JSON.parse(readFileSync(join(gateway.dataDir, 'config.json'), 'utf8')) as { roots: string[] };
    expect(settings.roots).toEqual([workspace]);
    const write = await gateway.call('/tools/file_write/execute', { json: { path: 'hello.txt', content: 'shared from the prompt' } });
    expect(await write.json()).toMatchObject({ success: true });
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('shared from the prompt');
  });
});

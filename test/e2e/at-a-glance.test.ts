import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway, type OwnerPage } from '../helpers/browser.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * The dashboard with a lot in it and its keys at a glance: the Memory view paging through more memories than one page
 * holds, a long import naming its bad lines, the Live footer and the `?` list of every key, and a rule made from an
 * approval worded alike in the notice and the Rules table. Real Chromium against a real `pincer serve`.
 */

let browser: Browser;
let gateway: DashboardGateway;
let owner: OwnerPage | undefined;
let files: string;

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
  files = tempDir('pincer-e2e-glance-');
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  rmSync(files, { recursive: true, force: true });
});

afterEach(async () => {
  if (owner) await closeOwner(owner);
  owner = undefined;
});

async function open(view: string): Promise<Page> {
  owner = await openAsOwner(browser, gateway, 'light');
  await owner.page.goto(`${gateway.url}/#/${view}`);
  return owner.page;
}

/** `count` memories, one a line, "note 0" the oldest; `bad` maps a line number (from 1) to the text put there instead. */
function notesFile(name: string, count: number, bad: Record<number, string> = {}): string {
  const lines = Array.from({ length: count }, (_, i) =>
    bad[i + 1] ?? JSON.stringify({ content: `note ${i}`, created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() }),
  );
  const file = join(files, name);
  writeFileSync(file, lines.join('\n'));
  return file;
}

describe('memory at scale', () => {
  it('imports a long file counting its lines, and names each bad line with its own reason', async () => {
    const page = await open('memory');
    await page.getByRole('heading', { level: 1, name: 'Memory' }).waitFor();
    const file = notesFile('long.jsonl', 2200, { 3: '{"content": "cut off', 1500: '{"content": ""}', 2101: '42' });
    await page.locator('input[type="file"]').setInputFiles(file);
    await page.getByRole('status').filter({ hasText: 'Imported 2,197 memories from long.jsonl; 3 lines failed (line 3: not JSON: ' }).waitFor();
    const bad = page.getByRole('list', { name: 'Lines not imported' }).getByRole('listitem');
    expect(await bad.allTextContents()).toEqual([
      expect.stringMatching(/^line 3: not JSON: \S/),
      'line 1,500: content must be a non-empty string.',
      'line 2,101: each line must be a JSON object with "content"',
    ]);
    await screenshot(page, 'memory-import-bad-lines');
  });

  it('pages through every memory with the total shown', async () => {
    const page = await open('memory');
    const summary = page.getByText(/ of 2,197 memories, newest first$/);
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/^\s*50 of 2,197 memories, newest first$/);
    expect(await page.getByRole('article').count()).toBe(50);
    const more = page.getByRole('button', { name: 'Show 50 more' });
    await more.click();
    await page.getByText(/^\s*100 of 2,197 memories, newest first$/).waitFor();
    expect(await page.getByRole('article').count()).toBe(100);
    // The 51st is the one after the 50th: newest first, nothing skipped or shown twice (line 2,101, note 2100, failed).
    const texts = await page.getByRole('article').locator('.content').allTextContents();
    expect(texts.slice(48, 52)).toEqual(['note 2151', 'note 2150', 'note 2149', 'note 2148']);
    await screenshot(page, 'memory-paging');
  });
});

describe('keys at a glance', () => {
  it('the Live footer names every view key, and ? lists every view and key until Esc or ? closes it', async () => {
    const page = await open('live');
    const footer = page.locator('p.hint');
    await footer.waitFor();
    // The views as the navigation lists them, each with its key.
    const links = page.getByRole('navigation', { name: 'Views' }).getByRole('link');
    const VIEWS = await Promise.all((await links.all()).map(async (link) => ({ label: (await link.textContent())!.trim(), key: (await link.getAttribute('aria-keyshortcuts'))! })));
    expect(VIEWS.length).toBeGreaterThanOrEqual(9);
    const range = `${VIEWS[0]!.key}–${VIEWS[VIEWS.length - 1]!.key}`;
    expect(await footer.textContent()).toContain(`${range} views`);
    expect(await footer.textContent()).toContain('? all keys');

    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keys' });
    await dialog.waitFor();
    const views = dialog.getByRole('region', { name: 'Views' });
    for (const view of VIEWS) await views.getByText(view.label, { exact: true }).waitFor();
    expect(await views.locator('dt').allTextContents()).toEqual(VIEWS.map((v) => v.key));
    for (const group of ['Everywhere', 'Live', 'Approvals', 'Tools']) await dialog.getByRole('region', { name: group }).waitFor();
    await screenshot(page, 'keys-overlay');
    // A view's key does nothing behind the open list.
    await page.keyboard.press('2');
    expect(page.url()).toMatch(/#\/live$/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.keyboard.press('?');
    await dialog.waitFor();
    await page.keyboard.press('?');
    await dialog.waitFor({ state: 'detached' });
    await page.keyboard.press('2');
    await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
  });
});

describe('a rule made from an approval', () => {
  it('is worded alike about the client in the notice and in the Rules table', async () => {
    const page = await open('approvals');
    const target = join(gateway.workspace, 'scratch.txt');
    writeFileSync(target, 'delete me');
    const waiting = gateway.call('/tools/file_delete/execute', { json: { path: target } });
    const card = page.getByRole('article', { name: /file_delete/ });
    await card.waitFor();
    await card.getByRole('button', { name: /^Always allow/ }).click();
    await card.getByRole('button', { name: 'Always allow', exact: true }).click();
    expect((await waiting).status).toBe(200);
    const notice = page.getByRole('status').filter({ hasText: /^Always allowed: file_delete/ });
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^Always allowed: file_delete for every client \(default asked\)/);

    await page.goto(`${gateway.url}/#/rules`);
    const row = page.getByRole('row').filter({ hasText: 'file_delete' });
    await row.waitFor();
    expect(await row.textContent()).toContain('for every client');
    expect(await row.textContent()).not.toContain('default');
    await screenshot(page, 'rules-from-approval');
  });
});

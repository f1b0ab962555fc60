import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway } from '../helpers/browser.js';
import { until } from '../helpers/wait.js';

/**
 * Every view of the dashboard, with something in it: calls in the history (one waiting for the owner), a memory, a
 * rule. Each view the tab bar lists is opened in real Chromium against a real `pincer serve` and photographed to
 * test-results/screenshots/view-*.png; with PINCER_DOCS_SCREENSHOTS=1 (`npm run docs:screenshots`) the pictures in
 * docs/screenshots/views/ are replaced too.
 */

const DOCS_VIEWS = process.env.PINCER_DOCS_SCREENSHOTS === '1' ? resolve(import.meta.dirname, '../../docs/screenshots/views') : undefined;
/** A browser test logs in, opens pages and waits on a real gateway: generous on a busy two-core machine. */
const SLOW = 180_000;

let browser: Browser;
let gateway: DashboardGateway;

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
  for (const expression of ['2+2', '(1+2)*3', 'sqrt(144)', '10/4']) {
    expect((await gateway.call('/tools/calculate/execute', { json: { expression } })).status).toBe(200);
  }
  expect((await gateway.call('/tools/calculate/execute', { json: { expression: '1/' } })).status).toBe(200);
  expect((await gateway.call('/memory', { json: { content: 'The release checklist lives in docs/releasing.md.', tags: ['docs'] } })).status).toBe(201);
  // One call waits for the owner, so the Approvals view has a card.
  const waiting = await gateway.call('/tools/run_shell/execute', {
    json: { command: 'frobnicate --all --force' },
    headers: { prefer: 'respond-async' },
  });
  expect(waiting.status).toBe(202);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

it(
  'shows every view the tab bar lists, each photographed',
  async () => {
    const owner = await openAsOwner(browser, gateway, 'light');
    const { page } = owner;
    const tabs = page.getByRole('navigation', { name: 'Views' }).getByRole('link');
    const hrefs = await until(async () => {
      const found = await tabs.evaluateAll((links) => links.map((link) => (link as unknown as { getAttribute(n: string): string | null }).getAttribute('href') ?? ''));
      return found.length > 0 && found;
    }, 'the tab bar');
    const views = hrefs.map((href) => href.replace(/^#\//, '')).filter((view) => /^[a-z]+$/.test(view));
    expect(views.length).toBe(hrefs.length);

    for (const view of views) {
      await page.goto(`${gateway.url}/#/${view}`);
      await page.getByRole('link', { name: new RegExp(view, 'i') }).and(page.locator('[aria-current="page"]')).waitFor();
      await page.waitForLoadState('networkidle');
      const taken = await screenshot(page, `view-${view}`);
      if (DOCS_VIEWS) {
        mkdirSync(DOCS_VIEWS, { recursive: true });
        copyFileSync(taken, join(DOCS_VIEWS, `${view}.png`));
      }
    }
    // The docs show every view and no other.
    const documented = readdirSync(resolve(import.meta.dirname, '../../docs/screenshots/views')).map((file) => file.replace(/\.png$/, ''));
    expect(documented.sort()).toEqual([...views].sort());
    await closeOwner(owner);
  },
  SLOW,
);

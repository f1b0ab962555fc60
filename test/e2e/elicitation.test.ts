import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPincer } from '../helpers/cli.js';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway } from '../helpers/browser.js';
import { until } from '../helpers/wait.js';

/**
 * An imported MCP server asks the user something during a call: real Chromium, a real `pincer serve` importing a real
 * stdio server, the call made over HTTP as an assistant makes it. The owner answers with the form the dashboard and
 * the popup build from the server's schema, and the server receives the answer.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SLOW = 120_000;
const ASKER = resolve(import.meta.dirname, '../server/mcp/fixtures/asking-server.mjs');
let browser: Browser;
let gateway: DashboardGateway;

function book(flight: string): Promise<Json> {
  return gateway
    .call('/tool_calls', { json: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'asker__book', arguments: JSON.stringify({ flight }) } }] } })
    .then(async (res) => JSON.parse(((await res.json()) as Json).messages[0].content));
}

async function question(): Promise<Json> {
  return until(async () => ((await (await gateway.call('/approvals')).json()) as Json).approvals.find((a: Json) => a.kind === 'elicitation'), 'the question');
}

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium(), startDashboardGateway()]);
  writeFileSync(join(gateway.dataDir, 'config.json'), JSON.stringify({ mcp_servers: { asker: { command: process.execPath, args: [ASKER] } } }));
  await gateway.restart();
  const cli = (...args: string[]) => runPincer([...args, '--data-dir', gateway.dataDir, '--port', String(gateway.port)], { PINCER_TOKEN: '' });
  await until(async () => (await cli('mcp-servers')).stdout.includes('book'), 'the asking server imported');
  expect((await cli('mcp-servers', 'accept', 'asker', '--risk', 'safe')).code).toBe(0);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe("an imported server's question in the browser", () => {
  it('the dashboard shows the question as a form from its schema; a missing required field is named; Send answer reaches the server', async () => {
    const answer = book('PA3');
    const asked = await question();
    const owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    await page.goto(`${gateway.url}/#/approvals`);
    const card = page.locator(`#approval-${asked.id}`);
    await card.getByRole('heading', { name: 'asker asks you' }).waitFor();
    await expect(card.getByText('Which seat on flight PA3?')).toBeTruthy();
    expect(await card.getByText('during a call of').textContent()).toContain('default');
    // The defaults are filled in; the required choice is not.
    expect(await card.getByLabel('Travellers').inputValue()).toBe('1');
    await card.getByRole('button', { name: 'Send answer' }).click();
    await card.getByRole('alert').filter({ hasText: 'Seat is required' }).waitFor();

    await card.getByLabel('Seat').selectOption('aisle');
    await card.getByLabel('Travellers').fill('3');
    await card.getByLabel('E-mail').fill('me@example.com');
    await card.getByLabel('Lounge access').check();
    await screenshot(page, 'elicitation-dashboard');
    await card.getByRole('button', { name: 'Send answer' }).click();
    const envelope = await answer;
    expect(envelope.success, JSON.stringify(envelope)).toBe(true);
    expect(JSON.parse(envelope.result)).toEqual({ heard: { action: 'accept', content: { seat: 'aisle', count: 3, email: 'me@example.com', vip: true } } });
    await card.waitFor({ state: 'detached' });
    await closeOwner(owner);
  }, SLOW);

  it('the popup page answers with the same form; Decline reaches the server as decline', async () => {
    const answer = book('PA4');
    const asked = await question();
    const owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    await page.setViewportSize({ width: 460, height: 600 });
    await page.goto(`${gateway.url}/popup/${asked.id}`);
    await page.getByText('Which seat on flight PA4?').waitFor();
    // The deciding keys leave a question to its form: "a" sends nothing.
    await page.locator('main[data-keys="armed"]').waitFor({ state: 'attached' });
    await page.keyboard.press('a');
    expect((await question()).id).toBe(asked.id);
    await screenshot(page, 'elicitation-popup');
    await page.getByRole('button', { name: 'Decline' }).click();
    expect(JSON.parse((await answer).result)).toEqual({ heard: { action: 'decline' } });
    await page.getByText('Declined').first().waitFor();
    await closeOwner(owner);
  }, SLOW);
});

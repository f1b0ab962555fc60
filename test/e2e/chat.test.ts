import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway } from '../helpers/browser.js';
import { startStubLlm, type StubLlm, type StubRequest } from '../server/llm/stub-llm.js';

/**
 * The Chat view in real Chromium against a real `pincer serve` whose model is the stub LLM: an answer streams in
 * with its tool steps, a dangerous call waits for the owner's click in the conversation, and conversations are
 * listed and reopened.
 */

let browser: Browser;
let gateway: DashboardGateway;
let stub: StubLlm;
let file: string;

function script(request: StubRequest) {
  const lastMessage = request.messages[request.messages.length - 1]!;
  const asked = String(request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
  if (lastMessage.role === 'user') {
    if (asked.includes('delete')) return { content: 'Deleting. ', tool_calls: [{ name: 'file_delete', arguments: { path: file } }] };
    return { content: 'Computing. ', tool_calls: [{ name: 'calculate', arguments: { expression: '6*7' } }] };
  }
  const result = JSON.parse(String(lastMessage.content)) as { success: boolean; result?: { result?: number } };
  return { content: asked.includes('delete') ? (result.success ? 'The file is gone.' : 'I could not delete it.') : `The answer is ${result.result?.result}.` };
}

beforeAll(async () => {
  [browser, gateway, stub] = await Promise.all([launchChromium(), startDashboardGateway(), startStubLlm(script)]);
  file = join(gateway.workspace, 'old-notes.txt');
  writeFileSync(file, 'old');
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await stub?.close();
});

describe('Chat view', () => {
  it('streams an answer with its tool steps, asks before a dangerous call, and keeps the conversation', async () => {
    const owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    // The owner points the gateway at the model (the Settings view does the same PATCH).
    const patched = await page.evaluate(async (base) => {
      const res = await fetch('/settings', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ llm: { base_url: base, model: 'stub-model', api: 'openai' } }) });
      return res.status;
    }, stub.url);
    expect(patched).toBe(200);

    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /Chat/ }).click();
    await page.getByRole('heading', { name: 'Chat' }).waitFor();
    const box = page.getByLabel('Message');
    await box.fill('What is 6*7?');
    await box.press('Enter');
    await page.getByText('Computing. The answer is 42.').waitFor();
    await expect.poll(() => page.locator('details.step').count()).toBe(1);
    await expect.poll(() => page.locator('details.step summary').innerText()).toContain('calculate');

    await box.fill('Please delete the old notes.');
    await box.press('Enter');
    await page.getByText('file_delete waits for your approval.').waitFor();
    expect(existsSync(file)).toBe(true);
    await screenshot(page, 'chat-waiting-for-approval');
    await page.getByRole('button', { name: 'Allow once' }).click();
    await page.getByText('Deleting. The file is gone.').waitFor();
    expect(existsSync(file)).toBe(false);
    await screenshot(page, 'chat-answered');

    // Listed, and reopened from the list after a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'Chat' }).waitFor();
    const conversation = page.getByRole('navigation', { name: 'Conversations' }).getByRole("button", { name: /^What is 6\*7\?/ });
    await conversation.click();
    await page.getByText('Deleting. The file is gone.').waitFor();
    await closeOwner(owner);
  });
});

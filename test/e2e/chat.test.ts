import { existsSync, writeFileSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOwner, launchChromium, openAsOwner, screenshot, startDashboardGateway, type DashboardGateway } from '../helpers/browser.js';
import { startStubLlm, type StubLlm, type StubRequest } from '../server/llm/stub-llm.js';

/**
 * The Chat view in real Chromium against a real `pincer serve` whose model is the stub LLM: an answer streams in
 * with its tool steps, a dangerous call waits for the owner's click in the conversation, and conversations are
 * listed and reopened. A model without tool support (Ollama's /api/show lists no `tools` capability) runs with its
 * tools in the prompt: the view says so, folds its reasoning away from the answer and marks the call it wrote as text.
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

/** A model that thinks aloud and writes its call as text (Hermes' `<tool_call>`), as small models do in prompted mode. */
function promptedScript(request: StubRequest) {
  const last = String(request.messages.at(-1)?.content ?? '');
  if (last.startsWith('<tool_response>')) return { content: '<think>The tool said 42, so I can answer.</think>The answer is 42.' };
  return {
    content: '<think>The owner wants 6*7; the calculator can do it.</think>Let me compute.\n<tool_call>\n{"name": "functions.calculate", "arguments": {"expression": "6*7"}}\n</tool_call>',
  };
}

/**
 * The stub LLM behind a front that describes every model as Ollama does one whose template has no tool support
 * (capabilities without `tools`); everything else goes through to the stub.
 */
async function withoutToolSupport(stub: StubLlm): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/api/show') {
      req.resume().on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ template: '{{ .Prompt }}', details: { family: 'gemma3' }, model_info: { 'general.architecture': 'gemma3' }, capabilities: ['completion'] }));
      });
      return;
    }
    const upstream = forward(`${stub.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
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

/** Settings → LLM endpoint, opened from the navigation. */
async function llmSection(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'LLM endpoint' });
  await section.getByLabel('Tools per turn').waitFor();
  return section;
}

/** `llm.max_tools` as GET /settings reports it. */
async function maxTools(page: Page): Promise<unknown> {
  return page.evaluate(async () => ((await (await fetch('/settings')).json()) as { llm: { max_tools?: unknown } }).llm.max_tools);
}

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
    // The step's arguments line, as the gateway built it for the step.
    expect(await page.locator('details.step summary .preview').innerText()).toBe('6*7');

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

  it('says when the model has its tools in the prompt, folds its reasoning and marks the call it wrote as text', async () => {
    const front = await withoutToolSupport(stub);
    stub.setScript(promptedScript);
    const owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    try {
      const patched = await page.evaluate(async (base) => {
        const res = await fetch('/settings', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ llm: { base_url: base, model: 'stub-model', api: 'ollama' } }) });
        return res.status;
      }, front.url);
      expect(patched).toBe(200);

      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /Chat/ }).click();
      await page.getByRole('heading', { name: 'Chat' }).waitFor();
      const box = page.getByLabel('Message');
      await box.fill('Work out 6*7 for me.');
      await box.press('Enter');
      const answer = page.getByRole('article', { name: 'Answer' });
      await answer.getByText('The answer is 42.').waitFor();
      // The model was sent no tools: they were in its system prompt.
      expect(stub.requests.at(-1)?.tools).toEqual([]);
      expect(String(stub.requests.at(-1)?.messages[0]?.content)).toContain('<tool_call>');

      // The badge, its reason shown on focus.
      const badge = page.getByRole('button', { name: 'Tools in prompt' });
      await badge.waitFor();
      await badge.focus();
      await expect.poll(() => page.getByRole('tooltip').innerText()).toContain('stub-model has no tool support in its chat template');
      await screenshot(page, 'chat-prompted-badge');

      // The reasoning is folded, under the answer, and none of it is in the answer's text.
      const reasoning = answer.locator('details.reasoning');
      expect(await reasoning.count()).toBe(1);
      expect(await reasoning.getAttribute('open')).toBeNull();
      expect(await reasoning.textContent()).toContain('the calculator can do it');
      expect(await reasoning.textContent()).toContain('The tool said 42');
      await expect.poll(() => reasoning.locator('.body').isVisible()).toBe(false);
      const text = await answer.locator('.text').innerText();
      expect(text).toContain('Let me compute.');
      expect(text).not.toMatch(/calculator|think|tool_call|The tool said/);

      // The call written as text, recovered, its name normalised.
      const summary = answer.locator('details.step summary');
      await expect.poll(() => summary.innerText()).toContain('recovered from text · hermes');
      expect(await summary.innerText()).toContain('name written as “functions.calculate”');
      await reasoning.locator('summary').click();
      await screenshot(page, 'chat-prompted-mode');

      // Reopened from the list, the stored answer says the same.
      await page.reload();
      await page.getByRole('heading', { name: 'Chat' }).waitFor();
      await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^Work out 6\*7/ }).click();
      await answer.getByText('The answer is 42.').waitFor();
      await page.getByRole('button', { name: 'Tools in prompt' }).waitFor();
      expect(await answer.locator('details.reasoning').getAttribute('open')).toBeNull();
      expect(await answer.locator('details.reasoning').textContent()).toContain('the calculator can do it');
      expect(await answer.locator('details.step summary').innerText()).toContain('recovered from text · hermes');
      await closeOwner(owner);
    } finally {
      await front.close();
    }
  });

  it('lists the tools offered this turn, and why, when llm.max_tools leaves some out', async () => {
    stub.setScript(script);
    const owner = await openAsOwner(browser, gateway);
    const { page } = owner;
    const patch = (llm: object) =>
      page.evaluate(async (body) => {
        const res = await fetch('/settings', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return res.status;
      }, { llm });
    try {
      expect(await patch({ base_url: stub.url, model: 'stub-model', api: 'openai' })).toBe(200);
      // Settings → LLM endpoint: three tools per turn (search_tools besides).
      const llm = await llmSection(page);
      await llm.getByLabel('Tools per turn').fill('3');
      await llm.getByRole('button', { name: 'Save' }).click();
      await llm.getByText('✓ Saved').waitFor();
      expect(await maxTools(page)).toBe(3);
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /Chat/ }).click();
      await page.getByRole('heading', { name: 'Chat' }).waitFor();
      const box = page.getByLabel('Message');
      await box.fill('Calculate 6*7 please.');
      await box.press('Enter');
      const answer = page.getByRole('article', { name: 'Answer' }).last();
      await answer.getByText('Computing. The answer is 42.').waitFor();
      // Three tools and search_tools: what the model was sent is what the line lists.
      const sent = (stub.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
      expect(sent).toHaveLength(4);
      const offered = answer.locator('details.offered');
      expect(await offered.locator('summary').innerText()).toBe('Offered 4 tools this turn');
      expect(await offered.getAttribute('open')).toBeNull();
      await offered.locator('summary').click();
      const items = await offered.locator('li').allInnerTexts();
      expect(items.map((i) => i.split(' ')[0]).sort()).toEqual([...sent].sort());
      expect(items).toContain('search_tools — search');
      for (const item of items) expect(item).toMatch(/ — (relevant to your message|used earlier|found by search_tools|yours|search)$/);
      await screenshot(page, 'chat-tools-offered');

      // Stored with the answer: the reopened conversation lists them too.
      await page.reload();
      await page.getByRole('heading', { name: 'Chat' }).waitFor();
      await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^Calculate 6\*7/ }).click();
      await answer.getByText('Computing. The answer is 42.').waitFor();
      expect(await answer.locator('details.offered summary').innerText()).toBe('Offered 4 tools this turn');

      // Emptied, the field goes back to automatic: null, not a number.
      const again = await llmSection(page);
      await expect.poll(() => again.getByLabel('Tools per turn').inputValue()).toBe('3');
      await again.getByLabel('Tools per turn').fill('');
      await again.getByRole('button', { name: 'Save' }).click();
      await again.getByText('✓ Saved').waitFor();
      expect(await maxTools(page)).toBeNull();
    } finally {
      expect(await patch({ max_tools: null })).toBe(200);
    }
    await closeOwner(owner);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../../renderer/src/state/approvals.svelte';
import { ChatSession } from '../../../renderer/src/state/chat.svelte';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, until, type Dashboard, type LlmRequest, type LlmReply } from './dashboard.svelte';

let page: Dashboard;
/** What the model does with each request; each test sets its own. */
let model: (request: LlmRequest) => LlmReply | Promise<LlmReply> = () => ({ content: 'Hello.' });

const lastMessage = (request: LlmRequest) => request.messages[request.messages.length - 1]!;

/** A model that calls calculate on the person's message, then answers with what the tool said. */
function computes(expression: string) {
  return (request: LlmRequest): LlmReply =>
    lastMessage(request).role === 'user'
      ? { content: 'Let me compute. ', tool_calls: [{ name: 'calculate', arguments: { expression } }] }
      : { content: `It is ${String(lastMessage(request).content)}.` };
}

/** The Chat view's session, with the dashboard's approval queue following the stream. */
function chatView() {
  return mount(
    () => {
      const approvals = new ApprovalQueue(new GatewayFeed());
      return { approvals, chat: new ChatSession(approvals) };
    },
    ({ approvals }) => void approvals.feed.status,
  );
}

beforeAll(async () => {
  page = await openDashboard({ approvalTimeoutS: 60 }, { llm: (request) => model(request) });
});
afterAll(async () => {
  await page?.close();
});

describe('ChatSession', () => {
  it("lists the LLM server's models and the configured one", async () => {
    const { state, unmount } = chatView();
    await state.chat.loadModels();
    expect(state.chat.error).toBeNull();
    expect(state.chat.models).toContain('stub-model');
    expect(state.chat.defaultModel).toBe('stub-model');
    unmount();
  });

  it('streams an answer into a new conversation, then lists the conversation', async () => {
    model = () => ({ content: ['Hello', ', owner', '.'] });
    const { state, unmount } = chatView();
    const { chat } = state;
    const sending = chat.send('  Say hello  ');
    expect(chat.sending).toBe(true);
    expect(chat.entries.map((e) => [e.role, e.text, e.done])).toEqual([
      ['user', 'Say hello', true],
      ['assistant', '', false],
    ]);
    // A second message while one is on its way, or an empty one, sends nothing.
    await chat.send('again');
    await chat.send('   ');
    await sending;
    expect(chat.sending).toBe(false);
    expect(chat.entries).toHaveLength(2);
    const answer = chat.entries[1]!;
    expect(answer).toMatchObject({ role: 'assistant', text: 'Hello, owner.', done: true, model: 'stub-model', running: [], waiting: [] });
    expect(answer.error).toBeUndefined();
    expect(chat.currentId).toMatch(/^cv_/);
    await until(() => chat.conversations.some((c) => c.id === chat.currentId), 'the conversation in the list');
    expect(chat.conversations.find((c) => c.id === chat.currentId)?.messages).toBeGreaterThanOrEqual(2);
    unmount();
  });

  it("shows the turn's tool steps and how the model got its tools", async () => {
    model = computes('6*7');
    const { state, unmount } = chatView();
    await state.chat.send('What is 6*7?');
    const answer = state.chat.entries[1]!;
    expect(answer.error).toBeUndefined();
    expect(answer.steps).toHaveLength(1);
    expect(answer.steps[0]).toMatchObject({ tool: 'calculate', status: 'succeeded', arguments: { expression: '6*7' } });
    expect(answer.text).toMatch(/^Let me compute\./);
    expect(answer.text).toMatch(/42/);
    expect(state.chat.toolMode?.mode).toBe('native');
    unmount();
  });

  it('opens a stored conversation as it was, starts a new one, and deletes one', async () => {
    model = computes('2+2');
    const { state, unmount } = chatView();
    const { chat } = state;
    await chat.send('What is 2+2?');
    const id = chat.currentId!;
    const shown = chat.entries.map((e) => ({ role: e.role, text: e.text, steps: e.steps.length }));
    chat.startNew();
    expect(chat.currentId).toBeNull();
    expect(chat.entries).toEqual([]);
    await chat.open(id);
    expect(chat.currentId).toBe(id);
    // The same question, answer and steps. (The stored answer joins its rounds' text without the paragraph break
    // the stream put between them: compared without it.)
    const unbroken = (entries: { role: string; text: string; steps: number }[]) => entries.map((e) => ({ ...e, text: e.text.replace(/\s+/g, ' ') }));
    expect(unbroken(chat.entries.map((e) => ({ role: e.role, text: e.text, steps: e.steps.length })))).toEqual(unbroken(shown));

    await chat.open('cv_nope');
    expect(chat.error).toMatch(/^Could not open the conversation: /);
    expect(chat.currentId).toBe(id);

    await chat.remove(id);
    expect(chat.currentId).toBeNull();
    expect(chat.conversations.some((c) => c.id === id)).toBe(false);
    unmount();
  });

  it('continues the open conversation with the next message', async () => {
    model = (request) => ({ content: `You said ${request.messages.filter((m) => m.role === 'user').length} things.` });
    const { state, unmount } = chatView();
    const { chat } = state;
    await chat.send('One.');
    const id = chat.currentId;
    await chat.send('Two.');
    expect(chat.currentId).toBe(id);
    expect(chat.entries.at(-1)!.text).toBe('You said 2 things.');
    unmount();
  });

  it('lets the owner answer a call waiting inside the turn, through the approval queue', async () => {
    const rule = await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'calculate', scope: 'tool' } });
    expect(rule.status).toBe(201);
    const ruleId = ((await rule.json()) as { id: string }).id;
    try {
      model = computes('3*3');
      const { state, unmount } = chatView();
      const { chat, approvals } = state;
      await until(() => approvals.feed.status === 'live', 'the stream');
      const sending = chat.send('What is 3*3?');
      const waiting = await until(() => chat.entries[1]?.waiting[0], 'the call to wait');
      expect(waiting.tool).toBe('calculate');
      await until(() => approvals.items.some((a) => a.id === waiting.approval_id), 'the approval in the queue');
      await chat.decide(waiting.approval_id, 'allow_once');
      await sending;
      const answer = chat.entries[1]!;
      expect(answer.waiting).toEqual([]);
      expect(answer.steps[0]).toMatchObject({ tool: 'calculate', status: 'succeeded' });
      expect(answer.text).toMatch(/9/);
      expect(chat.error).toBeNull();
      unmount();
    } finally {
      await page.gateway.asOwner(`/rules/${ruleId}`, { method: 'DELETE' });
    }
  });

  it("says why an approval could not be answered, in the chat's own banner", async () => {
    const { state, unmount } = chatView();
    await state.chat.decide('a_gone', 'deny');
    expect(state.chat.error).toBe(
      'Could not answer the approval: That call is no longer waiting: it was answered elsewhere, it expired, or its caller stopped waiting.',
    );
    expect(state.approvals.error).toBeNull();
    unmount();
  });

  it('stops a turn on request, and says it was stopped', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    model = () => ({ content: 'Too late.', hold: held });
    const { state, unmount } = chatView();
    const sending = state.chat.send('Take your time.');
    await new Promise((resolve) => setTimeout(resolve, 200));
    state.chat.stop();
    await sending;
    release();
    const answer = state.chat.entries[1]!;
    expect(answer).toMatchObject({ error: 'Stopped.', done: true });
    expect(state.chat.sending).toBe(false);
    unmount();
  });

  it("shows the gateway's message when the model fails", async () => {
    model = () => ({ error: { status: 500, message: 'the model ran out of memory' } });
    const { state, unmount } = chatView();
    await state.chat.send('Hello?');
    const answer = state.chat.entries[1]!;
    expect(answer.done).toBe(true);
    expect(answer.error).toMatch(/out of memory|500/);
    unmount();
  });

  it('says why conversations could not be listed', async () => {
    const { state, unmount } = chatView();
    await page.gateway.stop();
    try {
      await state.chat.load();
    } finally {
      await page.gateway.start();
    }
    expect(state.chat.error).toMatch(/^Could not list conversations: The gateway is not answering/);
    unmount();
  });
});

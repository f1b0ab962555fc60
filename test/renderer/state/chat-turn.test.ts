import { describe, expect, it } from 'vitest';
import { applyEvent, entriesOf, newEntry, readEvents, toolModeOf, type ChatEntry, type ChatStep, type StoredMessage } from '../../../renderer/src/state/chat-turn.js';

/** When a stored message was kept (the conversation's own times do not matter here). */
const AT = '2026-01-01T00:00:00.000Z';

const step = (fields: Partial<ChatStep> = {}): ChatStep => ({
  call_id: 'c_1',
  tool_call_id: 'call_1',
  tool: 'calculate',
  arguments: { expression: '6*7' },
  preview: '6*7',
  status: 'succeeded',
  result: { result: 42 },
  ...fields,
});

/** An answer built from events, as the session does with POST /chat's stream. */
function streamed(events: [string, object][]): ChatEntry {
  const answer = newEntry('assistant', '', false);
  for (const [event, data] of events) applyEvent(answer, event, data as Record<string, unknown>);
  return answer;
}

describe('applyEvent', () => {
  it('keeps reasoning apart from the answer text', () => {
    const answer = streamed([
      ['start', { conversation_id: 'cv_1', model: 'qwen3:4b' }],
      ['reasoning', { text: 'The user wants ' }],
      ['reasoning', { text: '6*7.' }],
      ['delta', { text: 'It is ' }],
      ['delta', { text: '42.' }],
    ]);
    expect(answer.text).toBe('It is 42.');
    expect(answer.reasoning).toBe('The user wants 6*7.');
    expect(answer.model).toBe('qwen3:4b');
  });

  it('separates the reasoning of each round of calls', () => {
    const answer = streamed([
      ['reasoning', { text: 'I need the calculator.' }],
      ['call', { tool_call_id: 'call_1', tool: 'calculate' }],
      ['call', { tool_call_id: 'call_2', tool: 'calculate' }],
      ['step', step({ call_id: 'c_1', tool_call_id: 'call_1' })],
      ['step', step({ call_id: 'c_2', tool_call_id: 'call_2' })],
      ['reasoning', { text: 'It said 42.' }],
    ]);
    expect(answer.reasoning).toBe('I need the calculator.\n\nIt said 42.');
    expect(answer.running).toEqual([]);
    expect(answer.steps).toHaveLength(2);
  });

  it('takes the reasoning from `done` when none was streamed, and keeps what was streamed otherwise', () => {
    expect(streamed([['done', { answer: 'Hi.', model: 'm', tool_mode: 'native', reasoning: 'Greet them.' }]]).reasoning).toBe('Greet them.');
    const answer = streamed([
      ['reasoning', { text: 'First.' }],
      ['call', { tool_call_id: 'call_1', tool: 'calculate' }],
      ['reasoning', { text: 'Second.' }],
      ['done', { answer: 'Hi.', model: 'm', tool_mode: 'native', reasoning: 'First.Second.' }],
    ]);
    expect(answer.reasoning).toBe('First.\n\nSecond.');
  });

  it('marks prompted mode from the `mode` event, with its reason, and from `done`', () => {
    const answer = streamed([
      ['start', { conversation_id: 'cv_1', model: 'gemma3:1b' }],
      ['mode', { mode: 'prompted', reason: 'gemma3:1b has no tool support in its chat template, so its tools are described in the prompt.' }],
    ]);
    expect(answer.toolMode).toBe('prompted');
    expect(answer.toolModeReason).toMatch(/no tool support/);
    applyEvent(answer, 'done', { answer: '', model: 'gemma3:1b', tool_mode: 'prompted', tool_mode_reason: 'Refused tools.' });
    expect(answer.toolModeReason).toBe('Refused tools.');
    expect(streamed([['done', { answer: 'Hi.', model: 'm', tool_mode: 'native' }]]).toolMode).toBe('native');
  });

  it('keeps a recovered step as sent, and the context report from `done`', () => {
    const recovered = step({ recovered: true, recovery: { shape: 'hermes', repairs: ['json'], written_name: 'functions.calculate' } });
    const context = { estimated_tokens: 7900, num_ctx: 8192, limit: 8192, tools_offered: 20, tools_left_out: ['memory_search', 'run_shell'] };
    const answer = streamed([
      ['step', recovered],
      ['done', { answer: '42.', steps: [step()], model: 'm', tool_mode: 'prompted', context, timings: { total_ms: 10, model_ms: 8, tools_ms: 2 } }],
    ]);
    expect(answer.steps).toEqual([recovered]); // the streamed steps are kept
    expect(answer.context).toEqual(context);
    expect(answer.timings?.total_ms).toBe(10);
  });
});

describe('tools offered', () => {
  it('takes the tools offered and why from `done`, and nothing when every tool was offered', () => {
    const offered = [
      { name: 'get_elevation', why: 'relevant' },
      { name: 'read_file', why: 'used' },
      { name: 'search_tools', why: 'search' },
    ];
    expect(streamed([['done', { answer: 'Hi.', model: 'm', tools_offered: offered }]]).offered).toEqual(offered);
    expect(streamed([['done', { answer: 'Hi.', model: 'm' }]]).offered).toBeUndefined();
  });

  it("keeps the last request's list when a stored answer spans several messages", () => {
    const [, answer] = entriesOf([
      { seq: 1, created_at: AT, message: { role: 'user', content: 'How high is Denver?' }, meta: null },
      { seq: 2, created_at: AT, message: { role: 'assistant', content: '' }, meta: { tools_offered: [{ name: 'search_tools', why: 'search' }] } },
      { seq: 3, created_at: AT, message: { role: 'tool', content: '{}' }, meta: null },
      {
        seq: 4,
        created_at: AT,
        message: { role: 'assistant', content: '1,609 m.' },
        meta: { tools_offered: [{ name: 'get_elevation', why: 'found' }, { name: 'search_tools', why: 'search' }] },
      },
    ]);
    expect(answer?.offered?.map((o) => o.name)).toEqual(['get_elevation', 'search_tools']);
  });
});

describe('entriesOf', () => {
  const turn: StoredMessage[] = [
    { seq: 1, created_at: AT, message: { role: 'user', content: 'What is 6*7?' }, meta: null },
    { seq: 2, created_at: AT, message: { role: 'assistant', content: 'Computing. ' }, meta: null },
    { seq: 3, created_at: AT, message: { role: 'tool', content: '{"success":true}' }, meta: null },
    {
      seq: 4,
      created_at: AT,
      message: { role: 'assistant', content: 'The answer is 42.' },
      meta: {
        answer: 'Computing. The answer is 42.',
        steps: [step({ recovered: true, recovery: { shape: 'mistral' } })],
        model: 'mistral:7b',
        tool_mode: 'prompted',
        tool_mode_reason: 'No tools in its template.',
        reasoning: 'Use the calculator.',
        context: { estimated_tokens: 3000, limit: 4096, tools_offered: 3, tools_left_out: ['run_shell'] },
        tools_offered: [
          { name: 'calculate', why: 'relevant' },
          { name: 'search_tools', why: 'search' },
        ],
      },
    },
  ];

  it('reads reasoning, tool mode, context and recovered steps from the stored meta', () => {
    const entries = entriesOf(turn);
    expect(entries.map((e) => e.role)).toEqual(['user', 'assistant']);
    const answer = entries[1]!;
    expect(answer.text).toBe('Computing. The answer is 42.');
    expect(answer.reasoning).toBe('Use the calculator.');
    expect(answer.toolMode).toBe('prompted');
    expect(answer.toolModeReason).toBe('No tools in its template.');
    expect(answer.context?.tools_left_out).toEqual(['run_shell']);
    expect(answer.steps[0]?.recovery?.shape).toBe('mistral');
    expect(answer.offered).toEqual([
      { name: 'calculate', why: 'relevant' },
      { name: 'search_tools', why: 'search' },
    ]);
    expect(answer.done).toBe(true);
  });

  it('reads older stored turns without the new fields', () => {
    const [, answer] = entriesOf([
      { seq: 1, created_at: AT, message: { role: 'user', content: 'Hi' }, meta: null },
      { seq: 2, created_at: AT, message: { role: 'assistant', content: 'Hello.' }, meta: { steps: [], model: 'm' } },
    ]);
    expect(answer).toMatchObject({ text: 'Hello.', reasoning: '', model: 'm' });
    expect(answer?.toolMode).toBeUndefined();
    expect(answer?.context).toBeUndefined();
    expect(answer?.offered).toBeUndefined();
  });
});

describe('toolModeOf', () => {
  it("is the latest answer's mode, while it streams too", () => {
    const entries = entriesOf([]);
    expect(toolModeOf(entries)).toBeUndefined();
    const first = streamed([['done', { answer: 'a', model: 'm', tool_mode: 'native' }]]);
    const second = streamed([['mode', { mode: 'prompted', reason: 'why' }]]);
    expect(toolModeOf([newEntry('user', 'q'), first])).toEqual({ mode: 'native', reason: undefined });
    expect(toolModeOf([first, newEntry('user', 'q'), second])).toEqual({ mode: 'prompted', reason: 'why' });
    // An answer that has not said yet leaves the one before it in force.
    expect(toolModeOf([second, newEntry('user', 'q'), newEntry('assistant', '', false)])).toEqual({ mode: 'prompted', reason: 'why' });
  });
});

describe('readEvents', () => {
  it('reads events split anywhere across chunks', async () => {
    const text = 'event: start\ndata: {"conversation_id":"cv_1"}\n\n: keep-alive\n\nevent: reasoning\ndata: {"text":"hm"}\n\nevent: mode\ndata: {"mode":"prompted"}\n\n';
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 5) controller.enqueue(bytes.slice(i, i + 5));
        controller.close();
      },
    });
    const seen: { event: string; data: string }[] = [];
    for await (const event of readEvents(body)) seen.push(event);
    expect(seen).toEqual([
      { event: 'start', data: '{"conversation_id":"cv_1"}' },
      { event: 'reasoning', data: '{"text":"hm"}' },
      { event: 'mode', data: '{"mode":"prompted"}' },
    ]);
  });
});

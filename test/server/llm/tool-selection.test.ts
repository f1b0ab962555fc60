import { afterEach, describe, expect, it } from 'vitest';
import { selectTools, toolsForWindow, windowOrder } from '../../../server/llm/tool-selection.js';
import type { ChatMessage, ToolSpec } from '../../../server/llm/types.js';
import { readJson } from '../../helpers/gateway.js';
import { startWithStub, type LlmSetup } from './gateway-with-llm.js';

const spec = (name: string): ToolSpec => ({ type: 'function', function: { name, description: `${name} tool`, parameters: { type: 'object' } } });
const tools = ['search_tools', ...Array.from({ length: 30 }, (_, i) => `t${i}`)].map(spec);
const user = (content: string): ChatMessage => ({ role: 'user', content });

describe('selectTools', () => {
  const base = { tools, searchTool: 'search_tools', isCallerTool: () => false, found: [] as string[], rank: () => [] as string[] };

  it('offers every tool when they fit the cap (search_tools aside)', () => {
    const few = tools.slice(0, 9);
    const chosen = selectTools({ ...base, tools: few, messages: [user('hi')], cap: 8 });
    expect(chosen.tools).toHaveLength(9);
    expect(chosen.offered.every((o) => o.why === 'all')).toBe(true);
  });

  it('offers at most cap tools plus search_tools: used, found, then relevant to the last message first', () => {
    const messages: ChatMessage[] = [
      user('earlier question'),
      { role: 'assistant', content: '', tool_calls: [{ id: 'a', name: 't3', arguments: {} }] },
      { role: 'tool', tool_call_id: 'a', tool_name: 't3', content: '{}' },
      user('the last question'),
    ];
    const asked: string[] = [];
    const chosen = selectTools({
      ...base,
      messages,
      cap: 4,
      found: ['t7'],
      rank: (query) => {
        asked.push(query);
        return query === 'the last question' ? ['t10', 't11', 't12'] : ['t20'];
      },
    });
    expect(chosen.tools.length).toBeLessThanOrEqual(5);
    expect(chosen.offered).toEqual([
      { name: 't3', why: 'used' },
      { name: 't7', why: 'found' },
      { name: 't10', why: 'relevant' },
      { name: 't11', why: 'relevant' },
      { name: 'search_tools', why: 'search' },
    ]);
    expect(asked[0]).toBe('the last question');
  });

  it("never leaves out the caller's own tools", () => {
    const chosen = selectTools({ ...base, messages: [user('x')], cap: 2, isCallerTool: (n) => ['t1', 't2', 't3'].includes(n) });
    expect(chosen.offered.filter((o) => o.why === 'yours').map((o) => o.name)).toEqual(['t1', 't2', 't3']);
  });
});

describe('windowOrder', () => {
  it("keeps every tool, the caller's own first, then search_tools, then the ranking, then the rest as offered", () => {
    const order = windowOrder({
      tools,
      messages: [user('the question')],
      searchTool: 'search_tools',
      isCallerTool: (name) => name === 't29',
      found: ['t5'],
      rank: () => ['t12'],
    }).map((t) => t.function.name);
    expect(order.slice(0, 4)).toEqual(['t29', 'search_tools', 't5', 't12']);
    expect(order.slice(4)).toEqual(tools.map((t) => t.function.name).filter((n) => !['t29', 'search_tools', 't5', 't12'].includes(n)));
  });
});

describe('toolsForWindow', () => {
  it('is eight per 4k tokens below 32k, and all of them at 32k, above, or unknown', () => {
    expect(toolsForWindow(4096)).toBe(8);
    expect(toolsForWindow(8192)).toBe(16);
    expect(toolsForWindow(2048)).toBe(4);
    expect(toolsForWindow(32768)).toBe(Infinity);
    expect(toolsForWindow(131072)).toBe(Infinity);
    expect(toolsForWindow(undefined)).toBe(Infinity);
  });
});

describe('per-turn selection in the LLM bridge, against a model that records what it was offered', () => {
  let setup: LlmSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });
  const offeredNames = (request: { tools: { function: { name: string } }[] }) => request.tools.map((t) => t.function.name);

  it('with llm.max_tools 8 sends at most 9 tools each request, the intended one among them, and says why', async () => {
    setup = await startWithStub('ollama', (request) =>
      request.messages.some((m) => m.role === 'tool') ? { content: 'It is morning in Sydney.' } : { tool_calls: [{ name: 'get_time', arguments: { timezone: 'Australia/Sydney' } }] },
    );
    expect((await setup.tg.asOwner('/settings', { method: 'PATCH', json: { llm: { max_tools: 8 } } })).status).toBe(200);
    const answer = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'What time is it in Sydney right now?' } }));
    expect(setup.stub.requests).toHaveLength(2);
    for (const request of setup.stub.requests) {
      expect(request.tools.length).toBeLessThanOrEqual(9);
      expect(offeredNames(request)).toContain('get_time');
      expect(offeredNames(request)).toContain('search_tools');
    }
    expect(answer.steps[0]).toMatchObject({ tool: 'get_time', status: 'succeeded' });
    expect(answer.tools_offered).toContainEqual({ name: 'get_time', why: 'used' });
    expect(answer.tools_offered).toContainEqual({ name: 'search_tools', why: 'search' });
  });

  it('works out the cap from the window /api/show reports when llm.max_tools is unset', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'Done.' }));
    setup.stub.setShow('stub-model', { capabilities: ['completion', 'tools'], contextLength: 4096 });
    await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Compute 2+2 for me.' } }));
    const request = setup.stub.requests[0]!;
    expect(request.tools.length).toBeLessThanOrEqual(9);
    expect(offeredNames(request)).toContain('calculate');
  });

  it('offers every tool when the window is large or not known', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'Done.' }));
    const all = ((await readJson(await setup.tg.api('/tools/openai'))).tools as unknown[]).length;
    await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Hello.' } }));
    expect(setup.stub.requests[0]!.tools).toHaveLength(all);
  });

  it('offers what search_tools found in the next request', async () => {
    setup = await startWithStub('ollama', (request) => {
      const results = request.messages.filter((m) => m.role === 'tool').length;
      if (results === 0) return { tool_calls: [{ name: 'search_tools', arguments: { query: 'the current time in a time zone' } }] };
      return { content: 'Nothing to do.' };
    });
    expect((await setup.tg.asOwner('/settings', { method: 'PATCH', json: { llm: { max_tools: 2 } } })).status).toBe(200);
    await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Hello there.' } }));
    const [first, second] = setup.stub.requests;
    expect(first!.tools.length).toBeLessThanOrEqual(3);
    expect(second!.tools.length).toBeLessThanOrEqual(3);
    const found = JSON.parse(String(second!.messages.find((m) => m.role === 'tool')!.content)).result.results as { name: string }[];
    expect(found.map((f) => f.name)).toContain('get_time');
    expect(offeredNames(first!)).not.toContain('get_time');
    expect(offeredNames(second!)).toContain('get_time');
  });
});

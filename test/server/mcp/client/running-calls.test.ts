import { describe, expect, it } from 'vitest';
import { checkRequestedSchema, samplingPrompt } from '../../../../server/mcp/client/owner-requests.js';
import { RunningCalls } from '../../../../server/mcp/client/running-calls.js';

/** Whose question a server's request is, and what Pincer agrees to show or send, decided before any approval opens. */

describe('RunningCalls: tying a server\'s question to a client', () => {
  const withCalls = async (calls: { callId: string; client: string; signal?: AbortSignal }[], check: (running: RunningCalls) => void) => {
    const running = new RunningCalls(() => undefined);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const all = calls.map((c) => running.during(c, `stub__${c.callId}`, () => held));
    check(running);
    release();
    await Promise.all(all);
    return running;
  };

  it('no call running: nobody to ask for', async () => {
    expect(new RunningCalls(() => undefined).attribute()).toMatchObject({ problem: expect.stringMatching(/none does/) });
  });

  it('one call: that client and that call', async () => {
    await withCalls([{ callId: 'c_1', client: 'alice' }], (r) => expect(r.attribute()).toEqual({ client: 'alice', callId: 'c_1', tool: 'stub__c_1' }));
  });

  it('two calls of one client: the client, but no call is guessed', async () => {
    await withCalls([{ callId: 'c_1', client: 'alice' }, { callId: 'c_2', client: 'alice' }], (r) => expect(r.attribute()).toEqual({ client: 'alice', callId: null, tool: null }));
  });

  it('calls of two clients: refused, never one of them', async () => {
    await withCalls([{ callId: 'c_1', client: 'alice' }, { callId: 'c_2', client: 'bob' }], (r) => expect(r.attribute()).toMatchObject({ problem: expect.stringMatching(/several clients/) }));
  });

  it("a request made with a call's own signal is that call's, whoever else is running", async () => {
    const bobs = new AbortController().signal;
    await withCalls([{ callId: 'c_1', client: 'alice' }, { callId: 'c_2', client: 'bob', signal: bobs }], (r) => expect(r.attribute(bobs)).toEqual({ client: 'bob', callId: 'c_2', tool: 'stub__c_2' }));
  });

  it('an ended call no longer counts', async () => {
    const running = await withCalls([{ callId: 'c_1', client: 'alice' }], () => undefined);
    expect(running.attribute()).toHaveProperty('problem');
  });
});

describe('checkRequestedSchema: only the flat forms MCP allows are shown', () => {
  it.each([
    [{ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'boolean' }, d: { type: 'array', items: { enum: ['x'] } } } }, null],
    [{ type: 'array' }, /must be an object schema/],
    [{ type: 'object', properties: { a: { type: 'object', properties: {} } } }, /field "a" must be a string, number, integer, boolean or enum field/],
    [{ type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } } }, /only a multi-select of enum values/],
    [{ type: 'object', properties: { a: 'string' } }, /field "a"/],
    [{ type: 'object', properties: {}, required: 'a' }, /required must be a list/],
    [{ type: 'object', properties: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { type: 'string' }])) }, /51 fields; at most 50/],
  ])('%j', (schema, problem) => {
    const checked = checkRequestedSchema(schema);
    if (problem === null) expect(checked).toMatchObject({ type: 'object' });
    else expect((checked as { problem: string }).problem).toMatch(problem);
  });
});

describe('samplingPrompt: what reaches the model', () => {
  it('text messages pass, with the system prompt and the limits', () => {
    expect(samplingPrompt({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], systemPrompt: 'be brief', maxTokens: 5, stopSequences: ['\n'] })).toEqual({
      system_prompt: 'be brief',
      messages: [{ role: 'user', text: 'hi' }],
      max_tokens: 5,
      stop: ['\n'],
    });
  });

  it('an image is refused: only text goes to the model', () => {
    expect(samplingPrompt({ messages: [{ role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } }], maxTokens: 5 })).toEqual({
      problem: 'Pincer passes only text to its model; this request has a "image" block',
    });
  });

  it('a prompt of more than 200,000 characters is refused', () => {
    expect(samplingPrompt({ messages: [{ role: 'user', content: { type: 'text', text: 'x'.repeat(200_001) } }], maxTokens: 5 })).toHaveProperty('problem');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../../helpers/gateway.js';
import { readSse } from '../../helpers/sse.js';
import { until } from '../../helpers/wait.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import { markupIn, matchCalls, NEGATIVES, POSITIVES, splitReply, type NegativeReply, type PositiveReply, type Split } from './family-replies.js';

/**
 * Every reply of the family corpus replayed by the stub model through POST /chat, against both upstream APIs, read
 * whole and streamed (SSE) with the reply split at awkward places: the intended calls run (steps, history with
 * `recovered` and the shape), their results reach the model's next request, no markup reaches the answer or any
 * delta; the negatives reach the user as they are and run nothing. The recovery rate over the positives is measured.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const FINAL = 'Final answer.';
const MODES = ['whole', 'chars', 'opener', 'inside-json'] as const;
type Mode = (typeof MODES)[number];

/** Every positive's outcome, for the rate printed and checked at the end. */
const outcomes: { api: string; mode: Mode; id: string; problems: string[] }[] = [];

interface Turn {
  status: number;
  answer?: Json;
  deltas: string[];
  reasoning: string[];
  problems: string[];
}

/** One /chat turn, whole or as SSE; the stub answers the user's message with `content`, then FINAL. */
async function turn(s: LlmSetup, message: string, content: string | string[], mode: Mode): Promise<Turn> {
  s.stub.setScript((request) => (last(request.messages).role === 'user' ? { content } : { content: FINAL }));
  if (mode === 'whole') {
    const res = await s.tg.api('/chat', { method: 'POST', json: { message } });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status, deltas: [], reasoning: [], problems: [`/chat answered ${res.status}: ${text.slice(0, 300)}`] };
    return { status: 200, answer: JSON.parse(text), deltas: [], reasoning: [], problems: [] };
  }
  const res = await s.tg.api('/chat', { method: 'POST', json: { message }, headers: { accept: 'text/event-stream' } });
  if (res.status !== 200) return { status: res.status, deltas: [], reasoning: [], problems: [`/chat answered ${res.status}: ${(await res.text()).slice(0, 300)}`] };
  const out: Turn = { status: 200, deltas: [], reasoning: [], problems: [] };
  for await (const e of readSse(res)) {
    if (!('event' in e)) continue;
    if (e.event === 'delta') out.deltas.push(JSON.parse(e.data).text);
    if (e.event === 'reasoning') out.reasoning.push(JSON.parse(e.data).text);
    if (e.event === 'done') out.answer = JSON.parse(e.data);
    if (e.event === 'error') out.problems.push(`SSE error event: ${e.data}`);
  }
  if (!out.answer) out.problems.push('no done event');
  return out;
}

async function newestCallId(s: LlmSetup): Promise<string | undefined> {
  return (await readJson(await s.tg.asOwner('/calls?limit=1'))).calls[0]?.id;
}

/** Replays one positive reply and answers what went wrong ([] when all is well). */
async function replayPositive(s: LlmSetup, reply: PositiveReply, mode: Mode): Promise<string[]> {
  const before = s.stub.requests.length;
  const content = mode === 'whole' ? reply.text : splitReply(reply.text, mode as Split);
  const t = await turn(s, `Help me (${reply.id}).`, content, mode);
  const problems = [...t.problems];
  if (!t.answer) return problems;
  const answer = t.answer;
  const steps: Json[] = answer.steps ?? [];

  // The intended calls ran, as recovered calls of the reply's shape.
  const matched = matchCalls(reply.calls, steps.map((step) => ({ tool: step.tool, arguments: step.arguments })));
  problems.push(...matched.problems);
  for (const [intended, i] of matched.pairs) {
    const step = steps[i];
    if (step.status !== 'succeeded') problems.push(`${intended.name}: step status ${step.status} ${JSON.stringify(step.error ?? {})}`);
    if (step.recovered !== true) problems.push(`${intended.name}: step not marked recovered`);
    if (step.recovery?.shape !== reply.shape) problems.push(`${intended.name}: step shape ${step.recovery?.shape}, expected ${reply.shape}`);
    if (intended.written && step.recovery?.written_name !== intended.written) problems.push(`${intended.name}: written_name ${step.recovery?.written_name}, expected ${intended.written}`);
    // The history, as the owner reads it.
    const record = await readJson(await s.tg.asOwner(`/calls/${step.call_id}`));
    if (record.tool !== intended.name || record.status !== 'succeeded' || record.recovered !== true || record.recovery?.shape !== reply.shape) {
      problems.push(`${intended.name}: history ${JSON.stringify({ tool: record.tool, status: record.status, recovered: record.recovered, recovery: record.recovery })}`);
    }
    if (JSON.stringify(record.arguments) !== JSON.stringify(step.arguments)) problems.push(`${intended.name}: history arguments ${JSON.stringify(record.arguments)}`);
    if (intended.written && record.recovery?.written_name !== intended.written) problems.push(`${intended.name}: history written_name ${record.recovery?.written_name}`);
  }
  if (reply.repaired && !steps.some((step) => step.recovery?.repairs?.length > 0)) problems.push('arguments needed repair, but no step lists repairs');

  // The results reached the model's next request.
  const asked = s.stub.requests.slice(before);
  if (asked.length !== 2) problems.push(`the model was asked ${asked.length} times, expected 2 (the call round, then the answer)`);
  const followUp = asked[1];
  if (followUp) {
    const toolMessages = followUp.messages.filter((m) => m.role === 'tool');
    for (const step of steps) {
      const message = toolMessages.find((m) => m.tool_call_id === step.tool_call_id);
      const envelope = message && JSON.parse(String(message.content));
      if (!envelope) problems.push(`${step.tool}: no tool message for ${step.tool_call_id} in the next request`);
      else if (envelope.call_id !== step.call_id || JSON.stringify(envelope.result) !== JSON.stringify(step.result)) problems.push(`${step.tool}: the next request carries another result: ${String(message!.content).slice(0, 200)}`);
    }
  }

  // No markup in the answer or any delta; the prose and the final answer reached the user.
  const text: string = answer.answer ?? '';
  const inAnswer = markupIn(text, reply.calls);
  if (inAnswer.length > 0) problems.push(`markup in the answer (${inAnswer.join(', ')}): ${JSON.stringify(text)}`);
  for (const piece of reply.prose ?? []) if (!text.includes(piece)) problems.push(`prose ${JSON.stringify(piece)} missing from the answer ${JSON.stringify(text)}`);
  if (!text.includes(FINAL)) problems.push(`the final answer is missing: ${JSON.stringify(text)}`);
  if (mode !== 'whole') {
    const joined = t.deltas.join('');
    const inDeltas = markupIn(joined, reply.calls);
    if (inDeltas.length > 0) problems.push(`markup in the delta events (${inDeltas.join(', ')}): ${JSON.stringify(joined)}`);
    if (joined !== text) problems.push(`the deltas ${JSON.stringify(joined)} are not the answer ${JSON.stringify(text)}`);
  }
  if (reply.reasoning) {
    if (!String(answer.reasoning ?? '').includes(reply.reasoning)) problems.push(`reasoning missing from the answer's "reasoning": ${JSON.stringify(answer.reasoning)}`);
    if (mode !== 'whole' && !t.reasoning.join('').includes(reply.reasoning)) problems.push(`reasoning missing from the reasoning events: ${JSON.stringify(t.reasoning.join(''))}`);
  }
  if (answer.tool_mode !== 'native') problems.push(`tool_mode ${answer.tool_mode}`);
  return problems;
}

/** Replays one negative: it must reach the user as it is, and nothing runs. */
async function replayNegative(s: LlmSetup, reply: NegativeReply, mode: Mode): Promise<string[]> {
  const problems: string[] = [];
  if (reply.disable) {
    const off = await s.tg.asOwner(`/tools/${reply.disable}`, { method: 'PATCH', json: { enabled: false } });
    if (off.status !== 200) return [`could not disable ${reply.disable}: ${off.status}`];
  }
  try {
    const newest = await newestCallId(s);
    const before = s.stub.requests.length;
    const content = mode === 'whole' ? reply.text : splitReply(reply.text, mode as Split);
    const t = await turn(s, `Negative: ${reply.id}`, content, mode);
    problems.push(...t.problems);
    if (!t.answer) return problems;
    if (t.answer.steps.length > 0) problems.push(`ran ${t.answer.steps.map((step: Json) => `${step.tool} ${JSON.stringify(step.arguments)}`).join(', ')}`);
    if ((await newestCallId(s)) !== newest) problems.push('a call was recorded in the history');
    const asked = s.stub.requests.slice(before);
    if (asked.length !== 1) problems.push(`the model was asked ${asked.length} times, expected once`);
    if (reply.disable && asked[0]?.tools.some((tool) => tool.function.name === reply.disable)) problems.push(`${reply.disable} was offered while disabled`);
    if (t.answer.answer !== reply.text) problems.push(`the answer is not the reply as written: ${JSON.stringify(t.answer.answer)}`);
    if (mode !== 'whole' && t.deltas.join('') !== reply.text) problems.push(`the deltas are not the reply as written: ${JSON.stringify(t.deltas.join(''))}`);
  } finally {
    if (reply.disable) await s.tg.asOwner(`/tools/${reply.disable}`, { method: 'PATCH', json: { enabled: true } });
  }
  return problems;
}

describe.each(['ollama', 'openai'] as const)('the family corpus through POST /chat with an %s server', (api) => {
  let setup: LlmSetup;
  beforeAll(async () => {
    setup = await startWithStub(api);
  });
  afterAll(async () => {
    await setup?.close();
  });

  describe.each(MODES)('read %s', (mode) => {
    it.each(POSITIVES.map((reply) => [reply.id, reply] as const))('recovers %s', async (_id, reply) => {
      const problems = await replayPositive(setup, reply, mode);
      outcomes.push({ api, mode, id: reply.id, problems });
      expect(problems, `${api} ${mode} ${reply.id}`).toEqual([]);
    });

    it.each(NEGATIVES.map((reply) => [reply.id, reply] as const))('leaves as text: %s', async (_id, reply) => {
      const problems = await replayNegative(setup, reply, mode);
      expect(problems, `${api} ${mode} negative "${reply.id}" (${reply.why})`).toEqual([]);
    });
  });
});

describe('the recovery rate over the corpus', () => {
  it('recovers at least 95 % of the positives (aiming for 100 %)', () => {
    const expected = POSITIVES.length * MODES.length * 2;
    expect(outcomes.length, 'every positive was replayed').toBe(expected);
    const failed = outcomes.filter((o) => o.problems.length > 0);
    const rate = (outcomes.length - failed.length) / outcomes.length;
    const lines = [`recovery rate: ${(rate * 100).toFixed(1)} % (${outcomes.length - failed.length}/${outcomes.length} replays of ${POSITIVES.length} replies)`];
    for (const f of failed) lines.push(`  FAILED ${f.api} ${f.mode} ${f.id}: ${f.problems.join(' | ')}`);
    console.log(lines.join('\n'));
    expect(rate).toBeGreaterThanOrEqual(0.95);
  });
});

describe('a recovered call of a dangerous tool', () => {
  let setup: LlmSetup | undefined;
  afterAll(async () => {
    await setup?.close();
  });

  it.each([
    ['ollama', 'hermes', '<tool_call>\n{"name": "launch", "arguments": {"target": "moon"}}\n</tool_call>'],
    ['openai', 'pythonic', '[launch(target="moon")]'],
  ] as const)('waits for the owner (%s, %s) and runs only after allow_once', async (api, shape, text) => {
    await setup?.close();
    setup = await startWithStub(api, (request) => (last(request.messages).role === 'user' ? { content: text } : { content: FINAL }));
    const s = setup;
    const pending = s.tg.api('/chat', { method: 'POST', json: { message: 'Launch to the moon.' } });
    const approval = await until(async () => (await readJson(await s.tg.asOwner('/approvals'))).approvals[0], 'the approval');
    expect(approval).toMatchObject({ tool: 'launch', arguments: { target: 'moon' } });
    // Nothing ran while the owner decides.
    expect(s.launches.count).toBe(0);
    const waiting = await readJson(await s.tg.asOwner(`/calls/${approval.call_id}`));
    expect(waiting).toMatchObject({ tool: 'launch', status: 'pending', recovered: true, recovery: { shape } });
    expect((await s.tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } })).status).toBe(200);
    const body = await readJson(await pending);
    expect(s.launches.count).toBe(1);
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]).toMatchObject({ tool: 'launch', status: 'succeeded', result: { launched: 'moon' }, recovered: true, recovery: { shape } });
    expect(body.answer).toBe(FINAL);
    const record = await readJson(await s.tg.asOwner(`/calls/${approval.call_id}`));
    expect(record).toMatchObject({ status: 'succeeded', recovered: true, recovery: { shape } });
  });
});

describe.each(['ollama', 'openai'] as const)('the prose of a recovered reply and the next answer (%s)', (api) => {
  let setup: LlmSetup;
  beforeAll(async () => {
    setup = await startWithStub(api);
  });
  afterAll(async () => {
    await setup?.close();
  });

  // Rounds of one turn are one answer: the prose around a call and the answer after it must not run together, and
  // the answer must read the same whole as streamed.
  it.each(POSITIVES.filter((reply) => reply.prose).map((reply) => [reply.id, reply] as const))('%s reads the same whole and streamed, rounds apart', async (_id, reply) => {
    const whole = await turn(setup, 'Go.', reply.text, 'whole');
    const streamed = await turn(setup, 'Go.', reply.text.match(/.{1,7}/gs)!, 'opener');
    expect([...whole.problems, ...streamed.problems]).toEqual([]);
    const lastProse = reply.prose!.at(-1)!;
    for (const answer of [whole.answer.answer as string, streamed.answer.answer as string]) {
      expect(answer.includes(`${lastProse}${FINAL}`), `the prose runs into the next round: ${JSON.stringify(answer)}`).toBe(false);
    }
    expect(whole.answer.answer).toBe(streamed.answer.answer);
  });
});

/**
 * A stand-in LLM server on 127.0.0.1 that speaks both wire formats as the real servers do:
 * - Ollama's /api/chat: NDJSON when streaming (the default), `arguments` as objects (text is a 400), each tool call
 *   whole in one chunk, `done_reason` "stop" even after tool calls; /api/tags, /api/version.
 * - OpenAI's /v1/chat/completions: SSE ending `data: [DONE]`, `arguments` as JSON text (an object is a 400), a
 *   call's arguments fragmented across deltas keyed by `index` with `id` and `type` on the first, finish_reason
 *   "tool_calls", usage when asked; a conversation whose tool calls are not all answered is a 400; /v1/models.
 * - Ollama's /api/show: capabilities and `model_info["<arch>.context_length"]`, per model when a test sets them
 *   (`setShow`).
 * - Servers that refuse tools (`refuseTools`): Ollama's 400 `registry.ollama.ai/library/<model> does not support
 *   tools` on /api/chat, llama.cpp's 400 `tools param requires --jinja flag` on /v1/chat/completions.
 * What the model says is decided by a script the test gives: a function of the conversation so far.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubCall {
  name: string;
  /** An object; sent as text on the OpenAI side. */
  arguments?: Record<string, unknown>;
  /** Sent as the arguments text instead (to send malformed JSON). */
  rawArguments?: string;
  id?: string;
}

export interface StubReply {
  /** The answer's text, in the pieces it streams in. */
  content?: string | string[];
  tool_calls?: StubCall[];
  /** Answer with this HTTP error instead. */
  error?: { status: number; message: string };
  /** Pause before answering (lets a test hang up mid-request). */
  hold?: Promise<void>;
  /** Write the answer itself instead (status, headers, body: an oversized or endless one). */
  raw?: (res: ServerResponse) => void | Promise<void>;
}

export interface StubRequest {
  api: 'ollama' | 'openai';
  body: Record<string, unknown>;
  /** The messages as sent. */
  messages: { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string; tool_name?: string }[];
  tools: { function: { name: string } }[];
  stream: boolean;
  headers: IncomingMessage['headers'];
}

export type Script = (request: StubRequest) => StubReply | Promise<StubReply>;

/** What /api/show says of one model (a test sets it with `setShow`). */
export interface StubShow {
  /** Default `['completion', 'tools']`; leave out `tools` for a model whose template has no tool support. */
  capabilities?: string[];
  /** Put in `model_info` as `<architecture>.context_length`. */
  contextLength?: number;
  /** `general.architecture`; default `llama`. */
  architecture?: string;
}

export interface StubLlm {
  url: string;
  requests: StubRequest[];
  /** Requests that arrived (including failed ones), by path. */
  hits: Map<string, number>;
  /** Held requests whose client hung up while they were held. */
  abandoned: number;
  setScript(script: Script): void;
  /** The next `n` chat requests fail with this status before the script is asked. */
  failNext(n: number, status: number): void;
  /** Every streamed OpenAI call reuses index 0 and only changes id (as some servers do). */
  sameIndex: boolean;
  /** Streamed OpenAI call fragments carry no index at all (the id only on a call's first). */
  noIndex: boolean;
  models: string[];
  /** What /api/show answers per model; a model without an entry gets the default (tools, no context length). */
  show: Map<string, StubShow>;
  /** Sets /api/show's answer for `model` (added to `models` when missing). */
  setShow(model: string, show: StubShow): void;
  /**
   * Chat requests carrying `tools` are refused as real servers refuse them for a model without tool support: true
   * for every model, or the models listed. Ollama (/api/chat): 400 `{"error": "registry.ollama.ai/library/<model>
   * does not support tools"}`; llama.cpp without --jinja (/v1/chat/completions): 400 `tools param requires --jinja flag`.
   */
  refuseTools: boolean | readonly string[];
  /** Chat requests refused by `refuseTools`, as they arrived (not in `requests`). */
  refusals: StubRequest[];
  close(): Promise<void>;
}

export async function startStubLlm(script: Script = () => ({ content: 'Hello.' })): Promise<StubLlm> {
  let current = script;
  let failures: { n: number; status: number } = { n: 0, status: 500 };
  const sockets = new Set<import('node:net').Socket>();
  const state: StubLlm = {
    url: '',
    requests: [],
    hits: new Map(),
    abandoned: 0,
    setScript: (s) => (current = s),
    failNext: (n, status) => (failures = { n, status }),
    sameIndex: false,
    noIndex: false,
    models: ['stub-model', 'llama3.1:8b'],
    show: new Map(),
    setShow: (model, show) => {
      if (!state.models.includes(model)) state.models.push(model);
      state.show.set(model, show);
    },
    refuseTools: false,
    refusals: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
    try {
      if (req.method === 'GET' && path === '/api/tags') {
        return json(res, 200, {
          models: state.models.map((name) => ({
            name,
            model: name,
            modified_at: '2026-11-30T10:00:00.000Z',
            size: 4_000_000_000,
            digest: 'sha256:0000',
            details: { format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '8B', quantization_level: 'Q4_K_M' },
          })),
        });
      }
      if (req.method === 'GET' && path === '/api/version') return json(res, 200, { version: '0.12.3' });
      if (req.method === 'POST' && path === '/api/show') {
        const { model } = JSON.parse(await readBody(req)) as { model?: string };
        if (!state.models.includes(String(model))) return json(res, 404, { error: `model '${model}' not found` });
        const shown = state.show.get(String(model)) ?? {};
        const architecture = shown.architecture ?? 'llama';
        return json(res, 200, {
          modelfile: '# stub',
          parameters: 'stop "<|eot_id|>"',
          template: '{{ .Prompt }}',
          details: { parent_model: '', format: 'gguf', family: architecture, families: [architecture], parameter_size: '8B', quantization_level: 'Q4_K_M' },
          model_info: {
            'general.architecture': architecture,
            ...(shown.contextLength !== undefined && { [`${architecture}.context_length`]: shown.contextLength }),
          },
          capabilities: shown.capabilities ?? ['completion', 'tools'],
          modified_at: '2026-11-30T10:00:00Z',
        });
      }
      if (req.method === 'GET' && path === '/v1/models') {
        return json(res, 200, { object: 'list', data: state.models.map((id) => ({ id, object: 'model', created: 1764496800, owned_by: 'library' })) });
      }
      if (req.method !== 'POST' || (path !== '/api/chat' && path !== '/v1/chat/completions')) return json(res, 404, { error: '404 page not found' });
      const api = path === '/api/chat' ? 'ollama' : 'openai';
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      if (failures.n > 0) {
        failures.n--;
        return json(res, failures.status, api === 'ollama' ? { error: 'server busy' } : { error: { message: 'server busy', type: 'server_error' } });
      }
      const model = String(body.model ?? '');
      if (!state.models.includes(model)) {
        return api === 'ollama'
          ? json(res, 404, { error: `model "${model}" not found, try pulling it first` })
          : json(res, 404, { error: { message: `The model \`${model}\` does not exist.`, type: 'invalid_request_error', code: 'model_not_found' } });
      }
      const messages = (body.messages ?? []) as StubRequest['messages'];
      const problem = api === 'ollama' ? ollamaProblem(messages) : openAIProblem(messages);
      if (problem) return json(res, 400, api === 'ollama' ? { error: problem } : { error: { message: problem, type: 'invalid_request_error' } });
      const stream = api === 'ollama' ? body.stream !== false : body.stream === true;
      const request: StubRequest = { api, body, messages, tools: (body.tools ?? []) as StubRequest['tools'], stream, headers: req.headers };
      const refuses = state.refuseTools === true || (Array.isArray(state.refuseTools) && state.refuseTools.includes(model));
      if (refuses && Array.isArray(body.tools) && body.tools.length > 0) {
        state.refusals.push(request);
        return api === 'ollama'
          ? json(res, 400, { error: `registry.ollama.ai/library/${model} does not support tools` })
          : json(res, 400, { error: { code: 400, message: 'tools param requires --jinja flag', type: 'invalid_request_error' } });
      }
      state.requests.push(request);
      const reply = await current(request);
      if (reply.hold) {
        let gone = false;
        const onGone = () => {
          gone = true;
          state.abandoned++;
        };
        req.socket.once('close', onGone);
        await reply.hold;
        req.socket.off('close', onGone);
        if (gone) return;
      }
      if (reply.raw) return await reply.raw(res);
      if (reply.error) return json(res, reply.error.status, api === 'ollama' ? { error: reply.error.message } : { error: { message: reply.error.message, type: 'server_error' } });
      if (api === 'ollama') return ollamaAnswer(res, model, reply, stream);
      return openAIAnswer(res, model, reply, stream, (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true, state.sameIndex, state.noIndex);
    } catch (error) {
      json(res, 500, { error: (error as Error).message });
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function pieces(content: string | string[] | undefined): string[] {
  if (content === undefined) return [];
  return Array.isArray(content) ? content : content.match(/.{1,7}/gs) ?? [];
}

/** Ollama refuses text arguments (its Go struct wants an object). */
function ollamaProblem(messages: StubRequest['messages']): string | undefined {
  for (const m of messages) {
    for (const call of (m.tool_calls ?? []) as { function?: { arguments?: unknown } }[]) {
      const args = call.function?.arguments;
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        return 'json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments';
      }
    }
  }
  return undefined;
}

/** OpenAI wants text arguments, and every call answered by a tool message (and no answer without its call). */
function openAIProblem(messages: StubRequest['messages']): string | undefined {
  const open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant') {
      if (open.size > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
      for (const call of (m.tool_calls ?? []) as { id?: string; type?: string; function?: { arguments?: unknown } }[]) {
        if (typeof call.function?.arguments !== 'string') return `Invalid type for 'messages[${i}].tool_calls[].function.arguments': expected a string.`;
        if (!call.id) return `Missing required parameter: 'messages[${i}].tool_calls[].id'.`;
        open.add(call.id);
      }
    } else if (m.role === 'tool') {
      if (!m.tool_call_id || !open.delete(m.tool_call_id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
      }
    } else if (open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    }
  }
  return undefined;
}

function ollamaAnswer(res: ServerResponse, model: string, reply: StubReply, stream: boolean): void {
  const calls = (reply.tool_calls ?? []).map((c, index) => ({
    ...(c.id && { id: c.id }),
    function: { index, name: c.name, arguments: c.arguments ?? (c.rawArguments !== undefined ? {} : {}) },
  }));
  const stats = { total_duration: 1000, load_duration: 10, prompt_eval_count: 12, prompt_eval_duration: 100, eval_count: 7, eval_duration: 200 };
  const at = () => new Date().toISOString();
  if (!stream) {
    return json(res, 200, {
      model,
      created_at: at(),
      message: { role: 'assistant', content: pieces(reply.content).join(''), ...(calls.length && { tool_calls: calls }) },
      done_reason: 'stop',
      done: true,
      ...stats,
    });
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for (const piece of pieces(reply.content)) res.write(`${JSON.stringify({ model, created_at: at(), message: { role: 'assistant', content: piece }, done: false })}\n`);
  if (calls.length) res.write(`${JSON.stringify({ model, created_at: at(), message: { role: 'assistant', content: '', tool_calls: calls }, done: false })}\n`);
  res.end(`${JSON.stringify({ model, created_at: at(), message: { role: 'assistant', content: '' }, done_reason: 'stop', done: true, ...stats })}\n`);
}

function openAIAnswer(res: ServerResponse, model: string, reply: StubReply, stream: boolean, includeUsage: boolean, sameIndex: boolean, noIndex = false): void {
  const calls = (reply.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_${Math.random().toString(36).slice(2, 10)}${i}`,
    name: c.name,
    arguments: c.rawArguments ?? JSON.stringify(c.arguments ?? {}),
  }));
  const finish = calls.length ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };
  const id = 'chatcmpl-stub';
  const created = 1764496800;
  if (!stream) {
    return json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: calls.length && reply.content === undefined ? null : pieces(reply.content).join(''),
            ...(calls.length && { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }),
          },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`);
  send({ role: 'assistant', content: '' });
  for (const piece of pieces(reply.content)) send({ content: piece });
  calls.forEach((call, i) => {
    const index = sameIndex ? 0 : i;
    const at = noIndex ? {} : { index };
    send({ tool_calls: [{ ...at, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    // The arguments in fragments, as OpenAI sends them.
    for (const fragment of call.arguments.match(/.{1,5}/gs) ?? []) send({ tool_calls: [{ ...at, function: { arguments: fragment } }] });
  });
  send({}, finish);
  if (includeUsage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

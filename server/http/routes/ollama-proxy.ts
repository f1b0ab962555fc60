import { Router, type NextFunction, type Request, type Response } from 'express';
import { SESSION_COOKIE } from '../../auth/credentials.js';
import type { LlmBridge } from '../../llm/bridge.js';
import { GatewayError } from '../../errors.js';
import { OllamaProvider, ollamaToolCall } from '../../llm/ollama.js';
import { readMessages, readTools } from '../../llm/openai-format.js';
import { badRequest, MixedTurns, pincerMeta, runProxyTurn, type ProxyTurn } from '../../llm/proxy.js';
import type { Sampling } from '../../llm/types.js';
import type { ClientAccess } from '../../policy/access.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { identityOf, readCookie } from '../identity.js';
import { errorPayload, hangUpSignal, KEEP_ALIVE_MS } from './chat.js';

/** What /api/version answers when the upstream is not Ollama: a version whose API has tool calling. */
const OLLAMA_API_VERSION = '0.12.0';

/** The token-less setting as it is right now: the owner turns it on and off while the gateway runs. */
type TokenlessSetting = () => { tokenless: boolean; client: string };

/**
 * Token-less mode for the Ollama-compatible routes only: a request to /api/* that presents no token and no owner
 * session acts as the configured client. The owner opts in (`ollama_proxy.tokenless`, read on every request so that
 * turning it off shuts the door for the very next one); the Host and Origin checks ran before this, so a web page
 * still cannot reach it. Every other route still demands a token.
 */
export function tokenlessOllama(setting: TokenlessSetting, identify: (req: Request, res: Response, next: NextFunction) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const { tokenless, client } = setting();
    const presented = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined || readCookie(req.headers.cookie, SESSION_COOKIE);
    if (tokenless && !presented && req.path.startsWith('/api/') && !req.path.startsWith('/api/v')) {
      res.locals.identity = { kind: 'client', name: client };
      return next();
    }
    identify(req, res, next);
  };
}

/**
 * The Ollama-compatible proxy: an app that speaks Ollama's API, pointed at Pincer, gets Pincer's tools the same
 * way as through /v1/chat/completions — NDJSON streaming, object arguments, `tool_name` on tool messages.
 */
export function ollamaProxyRoutes(
  bridge: LlmBridge,
  access: ClientAccess,
  registry: ToolRegistry,
  tokenless: TokenlessSetting,
  version: string,
): Router {
  const router = Router();
  const mixed = new MixedTurns();

  /** The token-less client gets, until the owner chooses otherwise, only tools that are safe. */
  const settleTokenlessTools = (name: string) => {
    const setting = tokenless();
    if (!setting.tokenless || name !== setting.client || access.hasProfile(name)) return;
    const safe = registry.list().filter((t) => t.definition.risk === 'safe').map((t) => t.definition.name);
    access.setTools(name, safe);
  };

  router.get('/api/version', (req, res) => answerVersion(bridge, version, req, res));
  router.get('/api/tags', (req, res) => listModels(bridge, req, res));
  router.post('/api/show', (req: Request, res: Response) => showModel(bridge, req, res));
  router.post('/api/chat', async (req: Request, res: Response) => {
    const { turn, streaming } = readChat(req, res);
    settleTokenlessTools(turn.asker.client);
    const started = process.hrtime.bigint();
    if (streaming) await streamChat(bridge, mixed, turn, res, started);
    else await answerChat(bridge, mixed, turn, res, started);
  });
  return router;
}

async function answerVersion(bridge: LlmBridge, version: string, req: Request, res: Response): Promise<void> {
  const provider = bridge.provider();
  const upstream = provider.version ? await provider.version(hangUpSignal(req, res)).catch(() => undefined) : undefined;
  res.json({ version: upstream ?? OLLAMA_API_VERSION, pincer: version });
}

async function listModels(bridge: LlmBridge, req: Request, res: Response): Promise<void> {
  const models = await bridge.provider().models(hangUpSignal(req, res));
  res.json({
    models: models.map((m) => ({
      name: m.id,
      model: m.id,
      modified_at: new Date((m.created ?? 0) * 1000).toISOString(),
      size: m.size ?? 0,
      digest: '',
      details: m.details ?? { format: '', family: '', families: null, parameter_size: '', quantization_level: '' },
    })),
  });
}

/** What apps ask before a chat (capabilities, template): Ollama's own answer, or a plain one for another server. */
async function showModel(bridge: LlmBridge, req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as { model?: unknown; name?: unknown };
  const model = typeof body.model === 'string' ? body.model : typeof body.name === 'string' ? body.name : undefined;
  if (!model) throw badRequest('Send {"model": "<name>"}.');
  const provider = bridge.provider();
  const signal = hangUpSignal(req, res);
  if (provider instanceof OllamaProvider) {
    // Pincer gives tools to a model without tool support in the prompt: through it, every model calls tools.
    const shown = (await provider.show(model, signal)) as { capabilities?: unknown } | null;
    if (shown && Array.isArray(shown.capabilities) && !shown.capabilities.includes('tools')) shown.capabilities = [...shown.capabilities, 'tools'];
    return void res.json(shown);
  }
  const known = (await provider.models(signal)).find((m) => m.id === model);
  if (!known) throw new GatewayError('LLM_MODEL_NOT_FOUND', `Model not found: "${model}".`, { model });
  res.json({
    modelfile: '',
    parameters: '',
    template: '',
    details: { parent_model: '', format: '', family: '', families: null, parameter_size: '', quantization_level: '' },
    model_info: {},
    capabilities: ['completion', 'tools'],
    modified_at: new Date((known.created ?? 0) * 1000).toISOString(),
  });
}

type ChatTurn = Omit<ProxyTurn, 'stream' | 'listener'>;
type TurnResult = Awaited<ReturnType<typeof runProxyTurn>>;

/** An /api/chat body as a turn; Ollama streams unless told not to. */
function readChat(req: Request, res: Response): { turn: ChatTurn; streaming: boolean } {
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Send {"model", "messages": [ … ]}.');
  const { model, messages, tools, stream, options, ...rest } = body;
  if (model !== undefined && typeof model !== 'string') throw badRequest('"model" must be a string.');
  if (!Array.isArray(messages)) throw badRequest('"messages" must be an array.');
  const who = identityOf(res);
  const turn: ChatTurn = {
    asker: { client: who.name, owner: who.kind === 'owner' },
    door: 'ollama-proxy',
    model: (model as string | undefined) || undefined,
    messages: readMessages(messages),
    callerTools: readTools(tools),
    sampling: samplingOf(options),
    passthrough: { ...rest, ...(options !== undefined && { options }) },
    signal: hangUpSignal(req, res),
  };
  return { turn, streaming: stream !== false };
}

/** One line of Ollama's chat answer. */
function chatLine(model: string, message: Record<string, unknown>, done: boolean, extra: Record<string, unknown> = {}) {
  return { model, created_at: new Date().toISOString(), message: { role: 'assistant', content: '', ...message }, done, ...extra };
}

/** The last line: what is left of the answer, the caller's tool calls, the counts and timings. */
function finalLine(result: TurnResult, started: bigint, content: string, thinking = '') {
  return chatLine(
    result.model,
    { content, ...(thinking && { thinking }), ...(result.callerCalls.length > 0 && { tool_calls: result.callerCalls.map(ollamaToolCall) }) },
    true,
    {
      done_reason: result.stoppedAtLimit ? 'length' : 'stop',
      total_duration: Number(process.hrtime.bigint() - started),
      load_duration: 0,
      prompt_eval_count: result.usage.prompt_tokens,
      prompt_eval_duration: 0,
      eval_count: result.usage.completion_tokens,
      eval_duration: Math.round(result.timings.model_ms * 1e6),
      pincer: pincerMeta(result),
    },
  );
}

async function answerChat(bridge: LlmBridge, mixed: MixedTurns, turn: ChatTurn, res: Response, started: bigint): Promise<void> {
  const result = await runProxyTurn(bridge, mixed, { ...turn, stream: false });
  if (!turn.signal.aborted) res.json(finalLine(result, started, result.answer, result.reasoning));
}

/** NDJSON, a line per piece of text or reasoning; an error after the headers went out is a line of its own. */
async function streamChat(bridge: LlmBridge, mixed: MixedTurns, turn: ChatTurn, res: Response, started: bigint): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  let name = turn.model ?? '';
  const write = (value: unknown) => {
    if (!res.writableEnded) res.write(`${JSON.stringify(value)}\n`);
  };
  // NDJSON has no comments: a line with empty content keeps the connection alive and adds nothing to the answer.
  const keepAlive = setInterval(() => write(chatLine(name, {}, false)), KEEP_ALIVE_MS);
  keepAlive.unref();
  try {
    const result = await runProxyTurn(bridge, mixed, {
      ...turn,
      stream: true,
      listener: {
        onText: (text) => write(chatLine(name, { content: text }, false)),
        // The model's <think> blocks go where Ollama puts a thinking model's reasoning.
        onReasoning: (text) => write(chatLine(name, { thinking: text }, false)),
        onWaiting: () => write(chatLine(name, {}, false)),
      },
    });
    name = result.model;
    write(finalLine(result, started, ''));
  } catch (error) {
    if (!turn.signal.aborted) write({ error: errorPayload(error).message });
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
}

/** Ollama's `options` in OpenAI's names, for an OpenAI-compatible upstream. */
function samplingOf(options: unknown): Sampling | undefined {
  if (!options || typeof options !== 'object') return undefined;
  const o = options as Record<string, unknown>;
  const sampling: Sampling = {};
  if (typeof o.temperature === 'number') sampling.temperature = o.temperature;
  if (typeof o.top_p === 'number') sampling.top_p = o.top_p;
  if (typeof o.seed === 'number') sampling.seed = o.seed;
  if (Array.isArray(o.stop) && o.stop.every((s) => typeof s === 'string')) sampling.stop = o.stop as string[];
  if (typeof o.num_predict === 'number') sampling.max_tokens = o.num_predict;
  return Object.keys(sampling).length > 0 ? sampling : undefined;
}

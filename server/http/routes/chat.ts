import { Router, type NextFunction, type Request, type Response } from 'express';
import { errorBody, GatewayError, refuse, type ErrorBody } from '../../errors.js';
import type { Assignable } from '../../contract/check.js';
import type { ChatAnswer, ChatAnswerMeta, ChatModelList, ChatStep, Conversation, ConversationList, StoredMessage } from '../../contract/chat.js';
import type { ChatAnswer as BridgeAnswer, LlmBridge } from '../../llm/bridge.js';
import type { Step } from '../../llm/loop.js';
import type { StoredMessage as KeptMessage } from '../../store/index.js';
import { identityOf } from '../identity.js';
import { argumentsPreview } from '../live-call.js';

/** Comment lines keep a quiet stream open through proxies and client timeouts while a tool or the owner is slow. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * An abort signal fired when the caller hangs up before its answer: the upstream request stops and approvals the
 * turn opened are withdrawn.
 */
export function hangUpSignal(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  // A long answer (a slow model, an owner deciding) is not an idle connection.
  req.socket.setTimeout(0);
  return controller.signal;
}

/** Writes Server-Sent Events; `comment()` writes a keep-alive line no client shows. */
export class EventStreamWriter {
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly res: Response) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    this.#timer = setInterval(() => this.comment('keep-alive'), KEEP_ALIVE_MS);
    this.#timer.unref();
  }

  event(name: string | undefined, data: unknown): void {
    if (this.res.writableEnded) return;
    this.res.write(`${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    if (!this.res.writableEnded) this.res.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  end(): void {
    clearInterval(this.#timer);
    if (!this.res.writableEnded) this.res.end();
  }
}

export function wantsEventStream(req: Request): boolean {
  return /\btext\/event-stream\b/i.test(String(req.headers.accept ?? ''));
}

/** What an error becomes on a stream that has already started: the envelope's error, then the end. */
export function errorPayload(error: unknown): ErrorBody {
  if (error instanceof GatewayError) return error.toBody();
  console.error('pincer: unexpected error in a chat turn:', error);
  return errorBody('INTERNAL_ERROR', 'The gateway hit an unexpected error; it has been logged.');
}

const CHAT_KEYS = ['message', 'conversation_id', 'model'];

/** The bridge's answer and steps go on the wire as the contract's, each step with its arguments line added here. */
export type ChatMatchesContract = [Assignable<Step, Omit<ChatStep, 'preview'>>, Assignable<Omit<BridgeAnswer, 'steps'>, Omit<ChatAnswer, 'steps'>>];

/** A step as the wire carries it: with the arguments line its call's live row shows (live-call.ts). */
function wireStep(step: Step): ChatStep {
  return { ...step, preview: argumentsPreview(step.arguments) };
}

function wireAnswer(answer: BridgeAnswer): ChatAnswer {
  return { ...answer, steps: answer.steps.map(wireStep) };
}

/** A kept message; an answer's steps get their arguments lines as when the turn was streamed. */
function wireMessage(kept: KeptMessage): StoredMessage {
  // The bridge wrote `meta` from its own answer (see LlmBridge.chat); only its steps lack the line.
  const meta = kept.meta as (Omit<ChatAnswerMeta, 'steps'> & { steps?: Step[] }) | null;
  if (!meta) return { ...kept, meta: null };
  const { steps, ...rest } = meta;
  return { ...kept, meta: { ...rest, ...(steps && { steps: steps.map(wireStep) }) } };
}

/**
 * POST /chat: one turn with the configured model and the caller's tools, answered whole or, with
 * `Accept: text/event-stream`, as `start`, `delta`, `step`, `waiting`, then `done` (or `error`); `reasoning` carries the
 * model's thinking apart from its answer, `mode` says when the model is given its tools in the prompt. Conversations are
 * listed, read and deleted under /chat/conversations; GET /chat/models lists what the LLM server offers.
 */
export function chatRoutes(bridge: LlmBridge): Router {
  const router = Router();

  router.post('/chat', async (req: Request, res: Response, next: NextFunction) => {
    const input = req.body as Record<string, unknown> | undefined;
    if (!input || typeof input !== 'object' || Array.isArray(input)) throw refuse.badRequest('Send {"message": "…", "conversation_id"?, "model"?}.');
    const unknown = Object.keys(input).filter((k) => !CHAT_KEYS.includes(k));
    if (unknown.length > 0) throw refuse.badRequest(`Unknown field ${unknown.map((k) => `"${k}"`).join(', ')}: send {"message", "conversation_id"?, "model"?}.`);
    for (const key of ['conversation_id', 'model'] as const) {
      if (input[key] !== undefined && input[key] !== null && typeof input[key] !== 'string') throw refuse.badRequest(`"${key}" must be a string.`);
    }
    const who = identityOf(res);
    const asker = { client: who.name, owner: who.kind === 'owner' };
    const chatInput = {
      message: input.message as string,
      conversationId: (input.conversation_id as string | null | undefined) ?? undefined,
      model: (input.model as string | null | undefined) ?? undefined,
    };
    const signal = hangUpSignal(req, res);
    if (!wantsEventStream(req)) {
      const answer = await bridge.chat(chatInput, asker, {}, { signal });
      if (!res.writableEnded && !signal.aborted) res.json(wireAnswer(answer));
      return;
    }
    // Refusals that need no model (a bad message, someone else's conversation) are plain HTTP errors, as without SSE.
    if (typeof chatInput.message !== 'string' || chatInput.message.trim() === '') return next(refuse.badRequest('Send {"message": "…"} with the text to say to the model.'));
    if (chatInput.conversationId !== undefined) bridge.conversation(chatInput.conversationId, asker);
    const stream = new EventStreamWriter(res);
    try {
      const answer = await bridge.chat(
        chatInput,
        asker,
        {
          onStart: (start) => stream.event('start', start),
          onText: (text) => stream.event('delta', { text }),
          onReasoning: (text) => stream.event('reasoning', { text }),
          onMode: (mode) => stream.event('mode', mode),
          onCall: (call) => stream.event('call', call),
          onStep: (step) => stream.event('step', wireStep(step)),
          onWaiting: (waiting) => stream.event('waiting', waiting),
        },
        { signal, stream: true },
      );
      stream.event('done', wireAnswer(answer));
    } catch (error) {
      if (!signal.aborted) stream.event('error', errorPayload(error));
    } finally {
      stream.end();
    }
  });

  router.get('/chat/models', async (req, res) => {
    const provider = bridge.provider();
    const models = await provider.models(hangUpSignal(req, res));
    res.json({ api: provider.api, base_url: provider.baseUrl, default: bridge.configuredModel ?? null, models } satisfies ChatModelList);
  });

  router.get('/chat/conversations', (req, res) => {
    const who = identityOf(res);
    const limit = Math.min(Math.max(Number(req.query.limit ?? 50) || 50, 1), 500);
    res.json({ conversations: bridge.conversations({ client: who.name, owner: who.kind === 'owner' }, limit) } satisfies ConversationList);
  });

  router.get('/chat/conversations/:id', (req, res) => {
    const who = identityOf(res);
    const { conversation, messages } = bridge.messages(String(req.params.id), { client: who.name, owner: who.kind === 'owner' });
    res.json({ ...conversation, messages: messages.map(wireMessage) } satisfies Conversation);
  });

  router.delete('/chat/conversations/:id', (req, res) => {
    const who = identityOf(res);
    bridge.deleteConversation(String(req.params.id), { client: who.name, owner: who.kind === 'owner' });
    res.status(204).end();
  });

  return router;
}

import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { LlmBridge } from '../../llm/bridge.js';
import { openAIToolCall } from '../../llm/openai.js';
import { readOpenAIRequest } from '../../llm/openai-format.js';
import { MixedTurns, pincerMeta, runProxyTurn } from '../../llm/proxy.js';
import type { ToolCall } from '../../llm/types.js';
import { identityOf } from '../identity.js';
import { errorPayload, EventStreamWriter, hangUpSignal } from './chat.js';

/**
 * The OpenAI-compatible proxy: an OpenAI client (or chat UI) pointed at Pincer talks to the configured model with
 * Pincer's tools added to its own. Pincer's calls run here, through the pipeline, as the token's client; the
 * client's own calls come back to it as usual. For a turn calling both, see MixedTurns.
 */
export function openAIProxyRoutes(bridge: LlmBridge): Router {
  const router = Router();
  const mixed = new MixedTurns();

  router.get('/v1/models', async (req, res) => {
    const models = await bridge.provider().models(hangUpSignal(req, res));
    const now = Math.floor(Date.now() / 1000);
    res.json({ object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', created: m.created ?? now, owned_by: 'pincer' })) });
  });

  router.post('/v1/chat/completions', async (req: Request, res: Response) => {
    const request = readOpenAIRequest(req.body);
    const who = identityOf(res);
    const signal = hangUpSignal(req, res);
    const id = `chatcmpl-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const created = Math.floor(Date.now() / 1000);
    const turn = {
      asker: { client: who.name, owner: who.kind === 'owner' },
      door: 'openai-proxy',
      model: request.model,
      messages: request.messages,
      callerTools: request.tools,
      sampling: request.sampling,
      passthrough: request.passthrough,
      signal,
    };

    if (!request.stream) {
      const result = await runProxyTurn(bridge, mixed, { ...turn, stream: false });
      if (signal.aborted) return;
      res.json({
        id,
        object: 'chat.completion',
        created,
        model: result.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: result.callerCalls.length > 0 && result.answer === '' ? null : result.answer,
              refusal: null,
              // The model's <think> blocks, apart from its answer, under the name DeepSeek's API and others use.
              ...(result.reasoning && { reasoning_content: result.reasoning }),
              ...(result.callerCalls.length > 0 && { tool_calls: result.callerCalls.map(openAIToolCall) }),
            },
            logprobs: null,
            finish_reason: finishReason(result),
          },
        ],
        usage: usageOf(result.usage),
        pincer: pincerMeta(result),
      });
      return;
    }

    // Streaming: the first chunk goes out before the model is asked, so the client sees the stream open at once.
    const stream = new EventStreamWriter(res);
    let model = request.model ?? '';
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      stream.event(undefined, { id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
    chunk({ role: 'assistant', content: '' });
    try {
      const result = await runProxyTurn(bridge, mixed, {
        ...turn,
        stream: true,
        listener: {
          onText: (text) => chunk({ content: text }),
          onReasoning: (text) => chunk({ reasoning_content: text }),
          // Only comment lines while a tool runs or the owner decides: nothing that would end up in the answer.
          onCall: (call) => stream.comment(`pincer: running ${call.tool}`),
          onWaiting: (waiting) => stream.comment(`pincer: ${waiting.tool} waits for the owner's approval (${waiting.approval_id})`),
        },
      });
      model = result.model;
      if (result.callerCalls.length > 0) {
        chunk({ tool_calls: result.callerCalls.map((call, index) => ({ index, ...openAIToolCall(call) })) });
      }
      chunk({}, finishReason(result));
      if (request.includeUsage) stream.event(undefined, { id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(result.usage) });
      stream.event(undefined, '[DONE]');
    } catch (error) {
      // The SDK raises an error event as an APIError carrying this message.
      if (!signal.aborted) stream.event(undefined, { error: { ...errorPayload(error), type: 'pincer_error' } });
    } finally {
      stream.end();
    }
  });

  return router;
}

function finishReason(result: { callerCalls: ToolCall[]; stoppedAtLimit: boolean; final: { finishReason: string } }): string {
  if (result.callerCalls.length > 0) return 'tool_calls';
  if (result.stoppedAtLimit) return 'length';
  return result.final.finishReason === 'tool_calls' ? 'stop' : result.final.finishReason || 'stop';
}

function usageOf(usage: { prompt_tokens: number; completion_tokens: number }) {
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

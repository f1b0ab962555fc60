import { defineTool, type AnyTool } from '../../../server/index.js';
import type { LlmApi } from '../../../server/config/config.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startStubLlm, type Script, type StubLlm } from './stub-llm.js';

/** Two calls of `rendezvous` finish only when both are in flight at once: it proves calls run concurrently. */
export function rendezvousTool(): AnyTool {
  let waiting: (() => void)[] = [];
  return defineTool<{ party: string }, { party: string; met: true }>({
    name: 'rendezvous',
    description: 'Test tool: returns once a second call is running at the same time.',
    parameters: { type: 'object', properties: { party: { type: 'string' } }, required: ['party'], additionalProperties: false },
    category: 'test',
    risk: 'safe',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (args) => {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length >= 2) {
          for (const go of waiting) go();
          waiting = [];
        }
      });
      return { party: args.party, met: true };
    },
  });
}

/** A dangerous tool: every call asks the owner. */
export function launchTool(runs: { count: number }): AnyTool {
  return defineTool<{ target: string }, { launched: string }>({
    name: 'launch',
    description: 'Test tool: marked dangerous, so the owner is asked.',
    parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false },
    category: 'test',
    risk: 'dangerous',
    annotations: { readOnlyHint: false, destructiveHint: true },
    handler: (args) => {
      runs.count++;
      return { launched: args.target };
    },
  });
}

export interface LlmSetup {
  tg: TestGateway;
  stub: StubLlm;
  launches: { count: number };
  close(): Promise<void>;
}

/** A real gateway whose LLM endpoint is a stub server speaking `api`. */
export async function startWithStub(api: LlmApi, script?: Script, options: { maxSteps?: number; model?: string | null } = {}): Promise<LlmSetup> {
  const stub = await startStubLlm(script);
  const launches = { count: 0 };
  const tg = await startGateway(
    { llm: { baseUrl: stub.url, model: options.model === null ? undefined : (options.model ?? 'stub-model'), api } },
    {
      extraTools: [rendezvousTool(), launchTool(launches)],
      llm: { upstream: { retries: 2, backoffMs: 5, idleTimeoutMs: 30_000 }, ...(options.maxSteps && { maxSteps: options.maxSteps }) },
    },
  );
  return {
    tg,
    stub,
    launches,
    async close() {
      await tg.close();
      await stub.close();
    },
  };
}

/** The last message of a stub request. */
export function last(messages: { role: string }[]): { role: string; content?: unknown; tool_name?: string; tool_call_id?: string } {
  return messages[messages.length - 1]!;
}

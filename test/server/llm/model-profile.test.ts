import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../server/errors.js';
import { ModelProfiles, toolRefusal } from '../../../server/llm/model-profile.js';
import { upstreamFailed } from '../../../server/llm/errors.js';
import type { LlmProvider, ModelDetails } from '../../../server/llm/types.js';

function provider(describe?: () => Promise<ModelDetails>): LlmProvider & { asked: number } {
  const p = {
    api: 'ollama' as const,
    baseUrl: 'http://127.0.0.1:1',
    asked: 0,
    chat: () => Promise.reject(new Error('not used')),
    models: () => Promise.resolve([]),
    ...(describe && {
      describe: () => {
        p.asked++;
        return describe();
      },
    }),
  };
  return p;
}

describe('ModelProfiles', () => {
  it('reads tool support and the context length once per model, and remembers them', async () => {
    const profiles = new ModelProfiles();
    const p = provider(() => Promise.resolve({ capabilities: ['completion'], contextLength: 8192 }));
    const first = await profiles.profile(p, 'gemma:2b');
    expect(first).toMatchObject({ toolMode: 'prompted', contextLength: 8192 });
    expect(first.reason).toContain('gemma:2b');
    await profiles.profile(p, 'gemma:2b');
    expect(p.asked).toBe(1);
  });

  it('takes a model with the tools capability, or with no capabilities listed, as native', async () => {
    const profiles = new ModelProfiles();
    expect((await profiles.profile(provider(() => Promise.resolve({ capabilities: ['completion', 'tools'] })), 'a')).toolMode).toBe('native');
    expect((await profiles.profile(provider(() => Promise.resolve({})), 'b')).toolMode).toBe('native');
    expect((await profiles.profile(provider(), 'c')).toolMode).toBe('native');
  });

  it('takes a server that cannot describe the model as native, and asks again only after a while', async () => {
    const profiles = new ModelProfiles();
    const p = provider(() => Promise.reject(new GatewayError('LLM_ERROR', 'no')));
    expect((await profiles.profile(p, 'm', undefined, 0)).toolMode).toBe('native');
    await profiles.profile(p, 'm', undefined, 1000);
    expect(p.asked).toBe(1);
    await profiles.profile(p, 'm', undefined, 120_000);
    expect(p.asked).toBe(2);
  });

  it('remembers a refusal of tools as prompted mode, keeping the context length', async () => {
    const profiles = new ModelProfiles();
    const p = provider(() => Promise.resolve({ capabilities: ['completion', 'tools'], contextLength: 4096 }));
    await profiles.profile(p, 'm');
    profiles.markPrompted(p, 'm', 'refused');
    expect(await profiles.profile(p, 'm')).toEqual({ toolMode: 'prompted', reason: 'refused', contextLength: 4096 });
  });
});

describe('toolRefusal', () => {
  const upstream = (message: string, status = 400) => upstreamFailed(status, message);

  it.each([
    'registry.ollama.ai/library/gemma:2b does not support tools',
    'tools param requires --jinja flag',
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    'This model does not support function calling',
  ])('knows %j', (message) => {
    expect(toolRefusal(upstream(message))).toContain(message.slice(0, 30));
  });

  it('is not any other error', () => {
    expect(toolRefusal(upstream('model "x" not found'))).toBeUndefined();
    expect(toolRefusal(upstream('does not support tools', 502))).toBeUndefined();
    expect(toolRefusal(new Error('does not support tools'))).toBeUndefined();
  });
});

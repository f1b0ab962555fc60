import { createInterface } from 'node:readline/promises';
import { configFrom, parse, UsageError, viaGateway, withCredentials, type Out } from './common.js';

/** A terminal to write the answer to as it streams; without one, text is printed line by line. */
export type ChatOut = Out & { write?: (text: string) => void };

const USAGE = 'usage: pincer chat ["<message>"] [--model M] [--conversation ID] [--json]   (no message: an interactive chat)';

/**
 * `pincer chat`: talk to the configured model with Pincer's tools, as the default client, through POST /chat on the
 * running gateway (or one started for the command). The answer streams as it comes; each tool call shows on
 * standard error, and a call that waits for the owner says how to answer it.
 */
export async function chat(args: string[], out: ChatOut, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const { values, positionals } = parse(args, { model: { type: 'string' }, conversation: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length > 1) throw new UsageError(USAGE);
  const config = configFrom(values);
  const token = withCredentials(config, ({ credentials }) => credentials.defaultToken);
  const model = values.model as string | undefined;
  let conversation = values.conversation as string | undefined;

  return viaGateway(config, async (base) => {
    const turn = async (message: string): Promise<boolean> => {
      const result = await streamTurn(base, token, { message, ...(conversation && { conversation_id: conversation }), ...(model && { model }) }, out, values.json === true);
      if (result.conversationId) conversation = result.conversationId;
      return result.ok;
    };
    if (positionals[0] !== undefined) return (await turn(positionals[0])) ? 0 : 1;

    out.error('Chat with the configured model and Pincer\'s tools. /new starts a new conversation, /exit (or Ctrl-D) ends.');
    const lines = createInterface({ input, terminal: false });
    const prompt = () => out.write?.('> ');
    prompt();
    for await (const raw of lines) {
      const line = raw.trim();
      if (line === '/exit' || line === '/quit') break;
      if (line === '/new') {
        conversation = undefined;
        out.error('(a new conversation)');
      } else if (line !== '') {
        await turn(line);
      }
      prompt();
    }
    lines.close();
    return 0;
  }, { plugins: true });
}

/** One turn over SSE: deltas to standard output, steps and waits to standard error. */
async function streamTurn(base: string, token: string, body: Record<string, string>, out: ChatOut, json: boolean): Promise<{ ok: boolean; conversationId?: string }> {
  const response = await fetch(`${base}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) {
    const text = await response.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
    } catch {
      // not JSON: the text as it is
    }
    out.error(`pincer: ${message}`);
    return { ok: false };
  }
  let pending = '';
  const write = (text: string) => {
    if (out.write) return out.write(text);
    pending += text;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      out.log(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
  };
  const flush = () => {
    if (out.write) out.write('\n');
    else if (pending !== '') out.log(pending);
    pending = '';
  };
  let conversationId: string | undefined;
  let ok = false;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (!event || !data) continue;
      const payload = JSON.parse(data) as Record<string, unknown>;
      switch (event) {
        case 'start':
          conversationId = payload.conversation_id as string;
          break;
        case 'delta':
          if (!json) write(payload.text as string);
          break;
        case 'step': {
          const error = payload.error as { name?: string; message?: string } | undefined;
          const recovery = payload.recovery as { shape?: string } | undefined;
          const how = recovery?.shape ? ` [written as text: ${recovery.shape}]` : '';
          out.error(`  · ${String(payload.tool)} ${JSON.stringify(payload.arguments)} → ${String(payload.status)}${error ? ` (${error.name}: ${error.message})` : ''}${how}`);
          break;
        }
        case 'mode':
          out.error(`  ℹ ${String(payload.reason ?? 'The model is given its tools in the prompt.')}`);
          break;
        case 'waiting':
          out.error(`  ⏸ ${String(payload.tool)} waits for your approval: the dashboard, or pincer approvals allow ${String(payload.approval_id)}`);
          break;
        case 'done':
          ok = true;
          if (json) out.log(JSON.stringify(payload, null, 2));
          else flush();
          break;
        case 'error':
          flush();
          out.error(`pincer: ${String((payload as { message?: string }).message)}`);
          break;
      }
    }
  }
  return { ok, ...(conversationId && { conversationId }) };
}

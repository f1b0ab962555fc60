import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalBroker, PendingApproval, QuestionRequest, QuestionResolution } from '../../approvals/broker.js';
import { GatewayError } from '../../errors.js';
import type { ModelAnswer, ModelPrompt } from '../../llm/sampling.js';
import type { ObjectSchema } from '../../tools/types.js';
import type { RunningCalls } from './running-calls.js';

/** A sampling request as the configured model is asked it. */
export type SamplingPrompt = ModelPrompt;

/** What the gateway lends imported servers: the owner (through approvals), the configured model, the roots. */
export interface OwnerRequestsHost {
  approvals: ApprovalBroker;
  /** Whether the owner lets imported servers use the configured model (config `mcp_sampling`), read each time. */
  samplingAllowed(): boolean;
  /** Runs an allowed sampling request on the configured LLM. */
  sample(prompt: SamplingPrompt, signal: AbortSignal): Promise<ModelAnswer>;
  /** The configured roots (absolute folders), read each time. */
  roots(): readonly string[];
}

/** The client capabilities Pincer declares to an imported server: form elicitation and roots, sampling when allowed. */
export function ownerCapabilities(host: OwnerRequestsHost | undefined): ClientCapabilities {
  if (!host) return {};
  return { elicitation: { form: {} }, roots: { listChanged: true }, ...(host.samplingAllowed() && { sampling: {} }) };
}

const SAMPLING_OFF =
  'The owner does not let imported servers use Pincer\'s model (Settings: "Let imported servers use the configured model", or mcp_sampling in config.json).';
const FIELD_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array']);
const MAX_FIELDS = 50;
const MAX_PROMPT_CHARS = 200_000;

/**
 * An elicitation's requested schema as MCP allows it: a flat object of string, number, integer, boolean and enum
 * fields (and multi-select arrays of enum values). Anything else is refused rather than shown half-understood.
 */
export function checkRequestedSchema(schema: unknown): ObjectSchema | { problem: string } {
  const s = schema as { type?: unknown; properties?: unknown; required?: unknown } | null;
  if (!s || typeof s !== 'object' || s.type !== 'object') return { problem: 'requestedSchema must be an object schema ({"type": "object", "properties": {…}})' };
  const properties = s.properties ?? {};
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return { problem: 'requestedSchema.properties must be an object' };
  const entries = Object.entries(properties as Record<string, unknown>);
  if (entries.length > MAX_FIELDS) return { problem: `requestedSchema has ${entries.length} fields; at most ${MAX_FIELDS} are shown` };
  for (const [name, field] of entries) {
    const f = field as { type?: unknown; items?: unknown } | null;
    if (!f || typeof f !== 'object' || !FIELD_TYPES.has(f.type as string)) {
      return { problem: `requestedSchema field "${name}" must be a string, number, integer, boolean or enum field (MCP elicitation forms are flat)` };
    }
    if (f.type === 'array') {
      const items = f.items as { type?: unknown; enum?: unknown; anyOf?: unknown } | undefined;
      if (!items || (!Array.isArray(items.enum) && !Array.isArray(items.anyOf))) return { problem: `requestedSchema field "${name}" is an array: only a multi-select of enum values is allowed` };
    }
  }
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))) return { problem: 'requestedSchema.required must be a list of field names' };
  return { type: 'object', properties: properties as Record<string, unknown>, ...(s.required !== undefined && { required: s.required as string[] }) };
}

/** Reads a sampling request's messages as text; images and audio are not passed on (the bridge speaks text). */
export function samplingPrompt(params: { messages: { role: string; content: unknown }[]; systemPrompt?: string; maxTokens: number; temperature?: number; stopSequences?: string[] }): SamplingPrompt | { problem: string } {
  if (!Array.isArray(params.messages) || !Number.isInteger(params.maxTokens)) return { problem: 'a sampling request needs messages and a whole-number maxTokens' };
  const messages: SamplingPrompt['messages'] = [];
  let size = params.systemPrompt?.length ?? 0;
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const texts: string[] = [];
    for (const block of blocks as { type?: string; text?: string }[]) {
      if (block?.type !== 'text' || typeof block.text !== 'string') return { problem: `Pincer passes only text to its model; this request has a "${block?.type}" block` };
      texts.push(block.text);
    }
    const text = texts.join('\n');
    size += text.length;
    messages.push({ role: message.role === 'assistant' ? 'assistant' : 'user', text });
  }
  if (size > MAX_PROMPT_CHARS) return { problem: `the prompt is longer than ${MAX_PROMPT_CHARS} characters` };
  if (messages.length === 0) return { problem: 'the request has no messages' };
  return {
    system_prompt: params.systemPrompt ?? null,
    messages,
    max_tokens: params.maxTokens,
    ...(params.temperature !== undefined && { temperature: params.temperature }),
    ...(params.stopSequences?.length && { stop: params.stopSequences }),
  };
}

/** How an owner's answer reaches the server: accept with the content, decline, or cancel (expired or withdrawn). */
export function elicitResult(resolution: QuestionResolution): ElicitResult {
  if (resolution.outcome === 'accepted') return { action: 'accept', content: resolution.content as ElicitResult['content'] };
  if (resolution.outcome === 'declined') return { action: 'decline' };
  return { action: 'cancel' };
}

/**
 * Opens the owner's question for a server's request and waits for the answer; the question goes when the server
 * withdraws its request (its signal) or the call it belongs to ends. Throws McpError for what the server must hear.
 */
export async function askOwner(
  server: string,
  host: OwnerRequestsHost,
  running: RunningCalls,
  question: Omit<QuestionRequest, 'server' | 'client' | 'callId' | 'tool' | 'reason'> & { reason: (client: string, tool: string) => string },
  signal: AbortSignal,
  /** The signal of the call the request belongs to, when known (a multi-round-trip call's own input round). */
  callSignal?: AbortSignal,
): Promise<{ approval: PendingApproval; resolution: QuestionResolution }> {
  const who = running.attribute(callSignal);
  if ('problem' in who) throw new McpError(ErrorCode.InvalidRequest, `Pincer cannot ask its owner: ${who.problem}.`);
  const tool = who.tool ?? `mcp:${server}`;
  let opened: ReturnType<ApprovalBroker['ask']>;
  try {
    opened = host.approvals.ask({ ...question, server, client: who.client, callId: who.callId, tool, reason: question.reason(who.client, tool) });
  } catch (error) {
    // Too many questions open for the client, or a schema Pincer cannot check an answer against.
    throw new McpError(ErrorCode.InvalidRequest, `Pincer cannot ask its owner: ${error instanceof GatewayError ? error.message : (error as Error).message}`);
  }
  running.tie(who.callId, opened.approval.id);
  const withdraw = () => host.approvals.withdraw(opened.approval.id);
  signal.addEventListener('abort', withdraw, { once: true });
  try {
    return { approval: opened.approval, resolution: await running.waitForOwner(who.callId, opened.settled) };
  } finally {
    signal.removeEventListener('abort', withdraw);
  }
}

/** An elicitation (a server-to-client request, or one input of a multi-round-trip call) put to the owner. */
async function elicit(
  server: string,
  host: OwnerRequestsHost,
  running: RunningCalls,
  params: { mode?: string; message?: unknown; requestedSchema?: unknown },
  signal: AbortSignal,
  callSignal?: AbortSignal,
): Promise<ElicitResult> {
  if (params.mode === 'url') throw new McpError(ErrorCode.InvalidParams, 'Pincer answers form elicitations only (no URL mode).');
  const schema = checkRequestedSchema(params.requestedSchema);
  if ('problem' in schema) throw new McpError(ErrorCode.InvalidParams, `Pincer cannot show this question to its owner: ${schema.problem}.`);
  const { resolution } = await askOwner(
    server,
    host,
    running,
    {
      kind: 'elicitation',
      message: String(params.message ?? '').slice(0, 4000),
      requestedSchema: schema,
      reason: (client, tool) => `The MCP server "${server}" asks you this while running ${tool} for ${client}.`,
    },
    signal,
    callSignal,
  );
  return elicitResult(resolution);
}

/** A sampling request (a server-to-client request, or one input of a multi-round-trip call) put to the owner, then the model. */
async function sample(
  server: string,
  host: OwnerRequestsHost,
  running: RunningCalls,
  params: Parameters<typeof samplingPrompt>[0],
  signal: AbortSignal,
  callSignal?: AbortSignal,
): Promise<CreateMessageResult> {
  if (!host.samplingAllowed()) throw new McpError(ErrorCode.InvalidRequest, SAMPLING_OFF);
  const prompt = samplingPrompt(params);
  if ('problem' in prompt) throw new McpError(ErrorCode.InvalidParams, `Pincer cannot run this sampling request: ${prompt.problem}.`);
  const lastUser = [...prompt.messages].reverse().find((m) => m.role === 'user')?.text ?? prompt.messages.at(-1)!.text;
  const { approval, resolution } = await askOwner(
    server,
    host,
    running,
    {
      kind: 'sampling',
      message: lastUser.length > 300 ? `${lastUser.slice(0, 300)}…` : lastUser,
      prompt,
      reason: (client, tool) => `The MCP server "${server}" wants the configured model to answer this while running ${tool} for ${client}.`,
    },
    signal,
    callSignal,
  );
  if (resolution.outcome !== 'allowed') {
    const why = resolution.outcome === 'denied' ? `the owner refused it${resolution.message ? `: ${resolution.message}` : ''}` : resolution.outcome === 'expired' ? 'the owner did not answer in time' : 'it was withdrawn';
    throw new McpError(ErrorCode.InvalidRequest, `Pincer did not run the sampling request: ${why}.`);
  }
  let answer: ModelAnswer;
  try {
    answer = await host.sample(prompt, signal);
  } catch (error) {
    throw new McpError(ErrorCode.InternalError, `The configured model failed: ${(error as Error).message}`);
  }
  host.approvals.recordResponse(approval.id, { model: answer.model, text: answer.text });
  return { role: 'assistant', content: { type: 'text', text: answer.text }, model: answer.model, stopReason: answer.stopped };
}

function rootsList(host: OwnerRequestsHost): { roots: { uri: string; name: string }[] } {
  return { roots: host.roots().map((folder) => ({ uri: pathToFileURL(folder).href, name: basename(folder) || folder })) };
}

/** Rounds of input one call may ask for before Pincer stops retrying it (a server that never finishes). */
const MAX_INPUT_ROUNDS = 8;

interface InputRequired {
  resultType: 'input_required';
  inputRequests?: Record<string, { method?: unknown; params?: unknown }>;
  requestState?: unknown;
}

const isInputRequired = (result: unknown): result is InputRequired => (result as { resultType?: unknown } | null)?.resultType === 'input_required';

/**
 * The 2026-07-28 way to ask: a tools/call answered `resultType: "input_required"` with `inputRequests` (elicitation,
 * sampling when the owner allows it, roots), retried with `inputResponses` under the same keys and
 * the `requestState` echoed. Pincer answers the rounds itself, so whoever called the tool sees only the final result;
 * each question is tied to exactly the call it came in (its signal), never guessed.
 */
function answerInputRounds(client: Client, server: string, host: OwnerRequestsHost, running: RunningCalls): void {
  const send = client.request.bind(client);
  client.request = (async (request: Parameters<typeof send>[0], schema: Parameters<typeof send>[1], options?: Parameters<typeof send>[2]) => {
    let result: unknown = await send(request, schema, options);
    if (request.method !== 'tools/call') return result;
    const signal = options?.signal ?? new AbortController().signal;
    for (let round = 1; isInputRequired(result); round++) {
      if (round > MAX_INPUT_ROUNDS) throw new McpError(ErrorCode.InvalidRequest, `the server asked for input ${MAX_INPUT_ROUNDS} times in one call; Pincer stopped retrying it`);
      const responses: Record<string, unknown> = {};
      for (const [key, asked] of Object.entries(result.inputRequests ?? {})) {
        if (asked?.method === 'elicitation/create') responses[key] = await elicit(server, host, running, (asked.params ?? {}) as Parameters<typeof elicit>[3], signal, options?.signal);
        else if (asked?.method === 'sampling/createMessage') responses[key] = await sample(server, host, running, (asked.params ?? {}) as Parameters<typeof sample>[3], signal, options?.signal);
        else if (asked?.method === 'roots/list') responses[key] = rootsList(host);
        else throw new McpError(ErrorCode.InvalidRequest, `Pincer does not answer ${String(asked?.method)} as an input request`);
      }
      const params: Record<string, unknown> = { ...(request.params as Record<string, unknown>), inputResponses: responses };
      if (result.requestState !== undefined) params.requestState = result.requestState;
      else delete params.requestState;
      result = await send({ ...request, params } as Parameters<typeof send>[0], schema, options);
    }
    return result;
  }) as typeof client.request;
}

/** Installs Pincer's answers to an imported server's requests: elicitation/create, sampling/createMessage, roots/list. */
export function installOwnerRequests(client: Client, server: string, host: OwnerRequestsHost, running: RunningCalls, capabilities: ClientCapabilities): void {
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicit(server, host, running, request.params, extra.signal));
  answerInputRounds(client, server, host, running);

  // Without the capability the SDK takes no handler for sampling; a server that asks anyway hears why, not "Method not found".
  client.fallbackRequestHandler = async (request) => {
    if (request.method === 'sampling/createMessage') throw new McpError(ErrorCode.InvalidRequest, SAMPLING_OFF);
    throw new McpError(ErrorCode.MethodNotFound, `Pincer does not answer ${request.method}.`);
  };

  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sample(server, host, running, request.params, extra.signal));
  }

  client.setRequestHandler(ListRootsRequestSchema, () => rootsList(host));
}

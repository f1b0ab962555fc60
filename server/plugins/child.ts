/**
 * The process a plugin runs in (started by PluginHost in the OS sandbox and under Node's permission model). It
 * loads the plugin's entry, tells the gateway which tools it defines, and runs calls; outgoing HTTP is asked of the
 * gateway, which applies the URL policy and the manifest's hosts. The protocol runs on file descriptor 3, a pipe of
 * its own: standard output is only a log, so whatever the plugin, a library or a program it starts writes there
 * (`console.log`, `fs.writeSync(1, …)`, binary data) cannot break into a message.
 */
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { DeclaredTool, ToChild, ToParent } from './protocol.js';
import type { PluginContext, PluginDefinition, PluginResponse, PluginTool } from '../plugin-api.js';

const channel = new Socket({ fd: 3, readable: true, writable: true });

function send(message: ToParent): void {
  channel.write(`${JSON.stringify(message)}\n`);
}

let tools = new Map<string, PluginTool>();
let config: Record<string, unknown> = {};
const running = new Map<number, AbortController>();
const fetches = new Map<number, { resolve: (r: PluginResponse) => void; reject: (e: Error) => void }>();
let nextFetch = 1;

const logger = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string) => send({ type: 'log', level, message: String(message) });

function response(message: Extract<ToChild, { type: 'fetched' }>): PluginResponse {
  const body = Buffer.from(message.body, 'base64');
  return {
    status: message.status,
    url: message.url,
    headers: message.headers,
    body: new Uint8Array(body),
    text: (encoding = 'utf-8') => new TextDecoder(encoding).decode(body),
    json: <T>() => JSON.parse(new TextDecoder().decode(body)) as T,
  };
}

function context(callId: string, client: string, signal: AbortSignal): PluginContext {
  return {
    signal,
    callId,
    client,
    config,
    logger: { debug: logger('debug'), info: logger('info'), warn: logger('warn'), error: logger('error') },
    http: {
      fetch: (url, init = {}) =>
        new Promise<PluginResponse>((resolve, reject) => {
          if (signal.aborted) return reject(new Error('the call was cancelled'));
          const id = nextFetch++;
          const onAbort = () => {
            fetches.delete(id);
            reject(new Error('the call was cancelled'));
          };
          signal.addEventListener('abort', onAbort, { once: true });
          const settle = () => signal.removeEventListener('abort', onAbort);
          fetches.set(id, { resolve: (r) => (settle(), resolve(r)), reject: (e) => (settle(), reject(e)) });
          send({ type: 'fetch', id, url: String(url), init });
        }),
    },
  };
}

async function load(message: Extract<ToChild, { type: 'load' }>): Promise<void> {
  config = message.config;
  try {
    const module = (await import(message.entry)) as { default?: PluginDefinition };
    const definition = module.default;
    if (!definition || typeof definition !== 'object' || !Array.isArray(definition.tools)) {
      throw new Error('the entry must `export default definePlugin({ tools: [...] })`');
    }
    tools = new Map();
    const declared: DeclaredTool[] = [];
    for (const tool of definition.tools) {
      if (!tool || typeof tool.name !== 'string' || typeof tool.handler !== 'function') {
        throw new Error('every tool needs a name and a handler function (use defineTool)');
      }
      if (tools.has(tool.name)) throw new Error(`the tool "${tool.name}" is defined twice`);
      tools.set(tool.name, tool as PluginTool);
      const { handler: _handler, ...rest } = tool;
      declared.push(JSON.parse(JSON.stringify(rest)) as DeclaredTool);
    }
    send({ type: 'loaded', tools: declared });
  } catch (error) {
    // A syntax error is named as one: the gateway then finds its file and line (Node's import names neither).
    const syntax = error instanceof SyntaxError ? 'SyntaxError: ' : '';
    send({ type: 'load-failed', message: `${syntax}${describe(error)}` });
  }
}

async function call(message: Extract<ToChild, { type: 'call' }>): Promise<void> {
  const tool = tools.get(message.tool);
  const controller = new AbortController();
  running.set(message.id, controller);
  try {
    if (!tool) throw new Error(`this plugin has no tool "${message.tool}"`);
    const value = await tool.handler(message.args as Record<string, unknown>, context(message.callId, message.client, controller.signal));
    send({ type: 'result', id: message.id, value: value === undefined ? null : value });
  } catch (error) {
    send({ type: 'error', id: message.id, name: error instanceof Error ? error.name : 'Error', message: describe(error) });
  } finally {
    running.delete(message.id);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // A permission refusal names what was refused, so the plugin's author can declare it.
    const code = (error as NodeJS.ErrnoException).code;
    const extra = code === 'ERR_ACCESS_DENIED' ? ` (${[(error as { permission?: string }).permission, (error as { resource?: string }).resource].filter(Boolean).join(' ')})` : '';
    return `${error.message}${extra}`;
  }
  return String(error);
}

createInterface({ input: channel, crlfDelay: Infinity }).on('line', (line) => {
  let message: ToChild;
  try {
    message = JSON.parse(line) as ToChild;
  } catch {
    return;
  }
  switch (message.type) {
    case 'load':
      void load(message);
      break;
    case 'call':
      void call(message);
      break;
    case 'cancel':
      running.get(message.id)?.abort(new Error('the call was cancelled'));
      break;
    case 'fetched':
      fetches.get(message.id)?.resolve(response(message));
      fetches.delete(message.id);
      break;
    case 'fetch-failed':
      fetches.get(message.id)?.reject(new Error(message.message));
      fetches.delete(message.id);
      break;
  }
});

// The gateway went away (or closed the pipe): nothing more will be asked.
channel.on('end', () => process.exit(0));
channel.on('error', () => process.exit(0));
// A rejection the plugin forgot to handle must not end the process that serves its other calls.
process.on('unhandledRejection', (reason) => send({ type: 'log', level: 'error', message: `unhandled rejection: ${describe(reason)}` }));

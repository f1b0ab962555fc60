import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../errors.js';
import { contentResult, type ContentBlock } from '../../tools/content.js';
import type { ProgressUpdate, ToolContext } from '../../tools/types.js';
import { isPlainObject } from '../../util/json.js';
import { OfferedResources, type OfferedResource } from './offered-resources.js';
import type { ServerStatus } from './server-view.js';

/** The longest timer Node keeps: in effect none, for requests whose limit is enforced by their abort signal. */
const SDK_TIMEOUT_OFF_MS = 2_147_483_647;

/** The server calls go to, as it is at the moment of a call. */
export interface CallTarget {
  /** Its client while connected, its status, and its last error (said when it cannot take a call). */
  state(): { client: Client | undefined; status: ServerStatus; lastError: string | null };
  /** A resource read's time limit (the entry's `timeoutMs`). */
  readTimeoutMs(): number;
  maxOutputBytes?: number;
}

/**
 * A server's progress notification as the caller gets it: only the protocol's fields (a server's extra keys are not
 * passed on), the message cut to a line's length.
 */
function progressUpdate(update: Progress): ProgressUpdate {
  return {
    progress: update.progress,
    ...(typeof update.total === 'number' && { total: update.total }),
    ...(typeof update.message === 'string' && { message: update.message.slice(0, 500) }),
  };
}

/** The tool calls made on one imported server, and the resources its results offered, read back on request. */
export class ServerCalls {
  /** Resources named in results, by client and URI (see OfferedResource). */
  readonly #offered = new OfferedResources();

  constructor(
    private readonly name: string,
    private readonly target: CallTarget,
  ) {}

  /** Calls `tool` on the server; its error result becomes a ToolError the model reads, with the content as it came. */
  async call(tool: string, importedAs: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const { client, status, lastError } = this.target.state();
    const signal = ctx.signal;
    const progress = ctx.progress;
    if (!client || status !== 'running') {
      throw new ToolError('MCP_SERVER_UNAVAILABLE', `The MCP server "${this.name}" is ${status}${lastError ? ` (${lastError})` : ''}; try again shortly.`);
    }
    let result: CallToolResult;
    try {
      // A progress token goes to the server only when the caller listens: then its progress reaches the caller.
      const onprogress = progress && ((update: Progress) => progress(progressUpdate(update)));
      // The call's time limit is the executor's (it aborts the signal): the SDK's own timer would also count the time
      // the owner takes to answer a question of the server's, which the executor's clock leaves out.
      result = (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: SDK_TIMEOUT_OFF_MS, ...(onprogress && { onprogress }) })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ToolError('MCP_SERVER_ERROR', `The MCP server "${this.name}" refused the call to ${tool}: ${(error as Error).message}`);
    }
    // The SDK client checked every block against the protocol's schemas: what is left is passed on as it came.
    const content = (result.content ?? []) as ContentBlock[];
    if (result.isError) {
      const text = content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');
      throw new ToolError('MCP_TOOL_ERROR', text || `${tool} on the MCP server "${this.name}" failed.`, { content });
    }
    this.#offered.note(ctx.client, importedAs, content);
    return contentResult({
      content,
      ...(isPlainObject(result.structuredContent) && { structuredContent: result.structuredContent }),
      ...(isPlainObject(result._meta) && { _meta: result._meta }),
    });
  }

  /** The resources this server offered `client` (in its results) that have not expired, newest last. */
  offered(client: string): OfferedResource[] {
    return this.#offered.list(client);
  }

  /** Reads a resource this server offered `client`; undefined if it did not (or the offer expired). */
  async readOffered(client: string, uri: string): Promise<{ contents: unknown[] } | undefined> {
    if (!this.#offered.has(client, uri)) return undefined;
    const { client: connection, status } = this.target.state();
    if (!connection || status !== 'running') {
      throw new ToolError('MCP_SERVER_UNAVAILABLE', `The MCP server "${this.name}" is ${status}; try reading ${uri} again shortly.`);
    }
    let read: { contents: unknown[] };
    try {
      read = (await connection.readResource({ uri }, { timeout: this.target.readTimeoutMs() })) as { contents: unknown[] };
    } catch (error) {
      throw new ToolError('MCP_SERVER_ERROR', `The MCP server "${this.name}" could not read ${uri}: ${(error as Error).message}`);
    }
    const limit = this.target.maxOutputBytes;
    const size = limit === undefined ? 0 : Buffer.byteLength(JSON.stringify(read.contents));
    if (limit !== undefined && size > limit) {
      throw new ToolError('OUTPUT_TOO_LARGE', `${uri} is ${size} bytes, more than the ${limit}-byte limit (max_output_bytes).`, { bytes: size, limit });
    }
    return read;
  }
}

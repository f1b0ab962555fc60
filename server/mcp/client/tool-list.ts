import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** How far a server's tool list is read. */
export interface ToolListLimits {
  pages: number;
  tools: number;
  timeMs: number;
  /** Each page's own timeout. */
  pageTimeoutMs: number;
}

export const TOOL_LIST_LIMITS: ToolListLimits = { pages: 100, tools: 2000, timeMs: 30_000, pageTimeoutMs: 30_000 };

/** Why a server's tool list was not read to its end (said as the server's last error). */
export class ToolListStopped extends Error {
  override readonly name = 'ToolListStopped';
}

/**
 * Reads every page of a server's `tools/list`.
 * Security: a server that always answers with another `nextCursor` (an empty page, or a cursor it gave before) was
 * paged 120,000 times in ten seconds, for ever. Paging stops at once on a cursor already seen, and after `pages`
 * pages, `tools` tools or `timeMs` in all, with a ToolListStopped saying which.
 */
export async function listAllTools(client: Client, limits: ToolListLimits = TOOL_LIST_LIMITS): Promise<Tool[]> {
  const tools: Tool[] = [];
  const cursors = new Set<string>();
  // One timer for the whole listing; each page gets its own signal (the SDK leaves a listener on the one it is given).
  let page = 0;
  let current = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    current.abort();
  }, limits.timeMs);
  try {
    let cursor: string | undefined;
    for (;;) {
      page++;
      current = new AbortController();
      let result: Awaited<ReturnType<Client['listTools']>>;
      try {
        result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: limits.pageTimeoutMs, signal: current.signal });
      } catch (error) {
        if (timedOut) throw new ToolListStopped(`its tools/list did not finish within ${limits.timeMs / 1000} s (${page - 1} pages read)`);
        throw error;
      }
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      if (cursors.has(cursor)) throw new ToolListStopped(`its tools/list returned a repeated cursor (${JSON.stringify(cursor.slice(0, 60))}, after page ${page})`);
      cursors.add(cursor);
      if (page >= limits.pages) throw new ToolListStopped(`its tools/list returned more than ${limits.pages} pages`);
      if (tools.length > limits.tools) throw new ToolListStopped(`its tools/list returned more than ${limits.tools} tools`);
    }
  } finally {
    clearTimeout(timer);
  }
}

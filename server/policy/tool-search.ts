import { SEARCH_TOOLS, type FoundTool } from '../tools/builtin/search-tools.js';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.js';
import { indexedTool, ToolIndex } from '../tools/search/tool-index.js';
import type { ClientAccess } from './access.js';

/**
 * Tool search over what each caller may use: one index of every registered tool, kept current as tools register,
 * toggle and go (plugins reload, imported servers change), each search limited to the caller's own enabled set.
 */
export class ToolSearch {
  readonly #index = new ToolIndex();
  #stale = true;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly access: ClientAccess,
  ) {
    registry.on('changed', () => {
      this.#stale = true;
    });
  }

  /** The caller's own enabled tools that best match a request, best first (search_tools itself is never one). */
  find(client: string, owner: boolean, query: string, limit: number): FoundTool[] {
    const mine = new Set(this.access.usable(this.registry, client, owner).map((t) => t.definition.name));
    mine.delete(SEARCH_TOOLS);
    return this.#fresh().search(query, { limit, allowed: (name) => mine.has(name) });
  }

  /** What `search_tools` answers: the same, and the tools found are listed for the client from now on. */
  findForModel(client: string, owner: boolean, query: string, limit: number): FoundTool[] {
    const found = this.find(client, owner, query, limit);
    this.access.noteFound(client, found.map((t) => t.name));
    return found;
  }

  /** Ranks the given tools for a request: the names, best first, of those that match at all. */
  rank(tools: readonly RegisteredTool[], query: string, limit: number): string[] {
    const among = new Set(tools.map((t) => t.definition.name));
    return this.#fresh()
      .search(query, { limit, allowed: (name) => among.has(name) })
      .map((hit) => hit.name);
  }

  #fresh(): ToolIndex {
    if (this.#stale) {
      this.#stale = false;
      this.#index.update(this.registry.list().map(indexedTool));
    }
    return this.#index;
  }
}

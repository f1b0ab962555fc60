import type { RegisteredTool } from '../tools/registry.js';

interface Entry {
  tools: readonly RegisteredTool[];
  deferred: readonly RegisteredTool[];
  warning: string | undefined;
  body: Buffer;
}

/** Callers whose last list is kept; a gateway has a handful of clients, so this is never reached in practice. */
const MAX_ENTRIES = 64;

/**
 * A tool list format (OpenAI, Anthropic) serialised once per change instead of once per request: assistants fetch
 * the list before every turn, and it is the same bytes until a tool is toggled, registered or a client's tool set
 * changes. Each caller's last list is kept with the tools it was built from; the next request reuses the bytes when
 * it sees the very same tools (registered tools are never changed in place: re-registering makes new objects).
 */
export class SerialisedToolLists {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly build: (tools: readonly RegisteredTool[], warning: string | undefined, deferred: readonly RegisteredTool[]) => unknown) {}

  /** The JSON body for `caller`, who is listed `tools` (and `deferred`, the rest of its set) and told `warning`. */
  body(caller: string, tools: readonly RegisteredTool[], warning: string | undefined, deferred: readonly RegisteredTool[] = []): Buffer {
    const kept = this.#entries.get(caller);
    if (kept && kept.warning === warning && sameTools(kept.tools, tools) && sameTools(kept.deferred, deferred)) return kept.body;
    const body = Buffer.from(JSON.stringify(this.build(tools, warning, deferred)));
    if (!kept && this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(caller, { tools, deferred, warning, body });
    return body;
  }
}

function sameTools(a: readonly RegisteredTool[], b: readonly RegisteredTool[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

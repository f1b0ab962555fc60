/** Tools on the wire: `GET /tools[/{name}]`, `PATCH /tools/{name}`, `GET /tools/search`, and the `tools` event. */

export type Risk = 'safe' | 'sensitive' | 'dangerous';

/** MCP tool annotations; the executor reads them (it caches only read-only idempotent tools). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A JSON Schema as the dashboard reads one (a form per parameter); any other keyword passes through. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  [keyword: string]: unknown;
}

/** A tool as `GET /tools` lists it. */
export interface ToolInfo {
  name: string;
  description: string;
  /** The schema as enforced and as published (unknown properties closed off). */
  parameters: JsonSchema;
  category: string;
  enabled: boolean;
  risk: Risk;
  /** `builtin`, `plugin:<name>` or `mcp:<server>`. */
  source: string;
  annotations: ToolAnnotations;
}

/** `GET /tools`: the caller's tools; `paused` while the owner has paused every call. */
export interface ToolList {
  tools: ToolInfo[];
  count: number;
  paused: boolean;
}

/** Why the `tools` event came, and the tools it is about. */
export interface ToolsChanged {
  reason: string;
  names: string[];
}

/** How a word of a tool search met a tool: itself, its stem, a synonym, a related word, or a typo away. */
export type ToolMatchHow = 'word' | 'stem' | 'synonym' | 'related' | 'fuzzy';

/** One word of a tool search and the tool's word it matched. */
export interface ToolMatch {
  word: string;
  matched: string;
  how: ToolMatchHow;
}

/** A tool `GET /tools/search` (and `search_tools`) found, best first. */
export interface FoundTool {
  name: string;
  title: string | null;
  description: string;
  source: string;
  risk: Risk;
  score: number;
  match: ToolMatch[];
}

/** `GET /tools/search`. */
export interface ToolSearchAnswer {
  results: FoundTool[];
}

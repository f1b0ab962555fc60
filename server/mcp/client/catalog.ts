import type { McpCatalogEntry } from '../../contract/sources.js';

/**
 * Well-known MCP servers, each with a pinned version, ready to add: the owner picks one, its command fills the add
 * form (or `pincer mcp-servers add --from-catalog NAME`), and the server is added like any other — its tools are
 * imported rated sensitive and wait for the owner's acceptance. Pinned: `npx -y pkg` without a version would run
 * whatever is newest at every start.
 */

/** One entry as GET /mcp-servers/catalog answers it. */
export type CatalogEntry = McpCatalogEntry;

/** The entry's arguments; `roots` are the folders shared with file tools (the filesystem server is pointed at them). */
interface CatalogSource extends Omit<CatalogEntry, 'command' | 'args' | 'problem'> {
  args: (roots: readonly string[]) => string[];
  /** Refused while no folder is shared. */
  needsRoots?: true;
}

const NPM_VERSION = '2026.8.31';
const UV_NOTE = 'Needs uv (it provides uvx) on this machine: https://docs.astral.sh/uv/. Until uvx is found, the server shows as failed, saying so.';

const npm = (name: string, title: string, description: string, extra: (roots: readonly string[]) => string[] = () => []): CatalogSource => ({
  name,
  title,
  description,
  runner: 'npx',
  package: `@modelcontextprotocol/server-${name}`,
  version: NPM_VERSION,
  args: (roots) => ['-y', `@modelcontextprotocol/server-${name}@${NPM_VERSION}`, ...extra(roots)],
  homepage: `https://github.com/modelcontextprotocol/servers/tree/main/src/${name}`,
  note: 'Needs Node.js (npx) on this machine.',
});

const pypi = (name: string, title: string, description: string, pkg: string, version: string, program: string, homepage: string, extra: string[] = []): CatalogSource => ({
  name,
  title,
  description,
  runner: 'uvx',
  package: pkg,
  version,
  args: () => ['--from', `${pkg}==${version}`, program, ...extra],
  homepage,
  note: UV_NOTE,
});

const SOURCES: readonly CatalogSource[] = [
  {
    ...npm('filesystem', 'Filesystem', 'Read, write, search and move files, limited to the folders given to it.', (roots) => [...roots]),
    needsRoots: true,
    note: 'Needs Node.js (npx). Pointed at the folders shared with Pincer when it is added; it does not follow later changes to them.',
  },
  npm('memory', 'Memory', 'A knowledge graph of entities, relations and observations that persists between conversations.'),
  npm('everything', 'Everything', "The protocol's reference server: tools, resources, prompts, images and structured results, for trying clients out.", () => ['stdio']),
  npm('sequential-thinking', 'Sequential thinking', 'Step-by-step problem solving, with thoughts that can be revised and branched.'),
  pypi('fetch', 'Fetch', 'Fetches a URL and returns its content as Markdown.', 'mcp-server-fetch', '2026.10.24', 'mcp-server-fetch', 'https://github.com/modelcontextprotocol/servers/tree/main/src/fetch'),
  pypi('git', 'Git', 'Reads, searches and changes Git repositories (status, diff, log, commit, branches).', 'mcp-server-git', '2026.10.19', 'mcp-server-git', 'https://github.com/modelcontextprotocol/servers/tree/main/src/git'),
  pypi('serena', 'Serena', 'Semantic code retrieval and editing through language servers: find symbols, references, and edit by symbol.', 'serena-agent', '2.1.0', 'serena', 'https://github.com/oraios/serena', ['start-mcp-server']),
];

/** The catalogue, with each entry's command line filled in for these roots. */
export function mcpCatalog(roots: readonly string[]): CatalogEntry[] {
  return SOURCES.map((source) => filled(source, roots));
}

/**
 * The `mcp_servers` entry for the catalogue's `name`, or what stops it: an unknown name (listing the known ones), or
 * an entry that needs shared folders while none is shared.
 */
export function catalogServerEntry(name: string, roots: readonly string[]): { command: string; args: string[] } | { problem: string } {
  const source = SOURCES.find((s) => s.name === name);
  if (!source) return { problem: `the catalogue has no server named "${name}" (it has ${SOURCES.map((s) => s.name).join(', ')})` };
  const { command, args, problem } = filled(source, roots);
  return problem ? { problem } : { command, args };
}

function filled(source: CatalogSource, roots: readonly string[]): CatalogEntry {
  const { args, needsRoots, ...rest } = source;
  const problem =
    needsRoots && roots.length === 0
      ? `the ${source.name} server is pointed at the folders shared with Pincer, and none is shared yet: share one first (Settings, or "pincer roots add DIR")`
      : null;
  return { ...rest, command: source.runner, args: args(roots), problem };
}

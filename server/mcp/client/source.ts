import type { HeldBecause, SourceStatus, SourceToolStatus, SourceToolView, SourceView } from '../../contract/sources.js';
import { refuse } from '../../errors.js';
import type { AcceptSelection, ToolSource } from '../../tools/sources/source.js';
import type { McpServerManager } from './servers.js';
import type { ImportedToolStatus, McpServerView, ServerStatus } from './server-view.js';

/**
 * An imported tool's status in the sources' vocabulary. The one place the two sets of words meet: `GET /mcp-servers`
 * and the `mcp_servers` event keep their own words (`changed`, `flagged` …), which scripts rely on. A server's own
 * statuses are already words of the sources' vocabulary.
 */
const TOOL_STATUS: Record<ImportedToolStatus, { status: SourceToolStatus; held: HeldBecause | null }> = {
  active: { status: 'active', held: null },
  changed: { status: 'held', held: 'changed' },
  flagged: { status: 'held', held: 'flagged' },
  disabled: { status: 'disabled', held: null },
  invalid: { status: 'invalid', held: null },
};
const SERVER_STATUS: Record<ServerStatus, SourceStatus> = {
  starting: 'starting',
  running: 'running',
  restarting: 'restarting',
  failed: 'failed',
  disabled: 'disabled',
  stopped: 'stopped',
};

/** An imported MCP server as a tool source: its tools accepted, rated and turned off one by one. */
export function mcpSourceView(view: McpServerView): SourceView {
  const status = SERVER_STATUS[view.status];
  const tools = view.tools.map((tool): SourceToolView => {
    const mapped = TOOL_STATUS[tool.status];
    return {
      name: tool.name,
      tool: tool.imported_as,
      // Nothing of its own holds it back, but a server that is off or not running has nothing registered.
      status: mapped.status !== 'active' || status === 'running' ? mapped.status : status === 'disabled' ? 'disabled' : 'inactive',
      held_because: mapped.held,
      risk: tool.risk,
      raised_because: [],
      accepted: tool.accepted,
      description: tool.description,
      flags: tool.flags,
      problem: tool.problem,
    };
  });
  return {
    kind: 'mcp',
    name: view.name,
    status,
    held_because: null,
    reason: view.last_error,
    restarts: view.restarts,
    accepted_at: null,
    tools,
    detail: `/mcp-servers/${encodeURIComponent(view.name)}`,
  };
}

/** The imported MCP servers adapter of ToolSource. */
export class McpSource implements ToolSource {
  readonly kind = 'mcp' as const;

  constructor(private readonly servers: McpServerManager) {}

  async start(): Promise<void> {
    this.servers.start();
  }

  stop(): Promise<void> {
    return this.servers.close();
  }

  status(): SourceView[];
  status(name: string): SourceView | undefined;
  status(name?: string): SourceView[] | SourceView | undefined {
    if (name === undefined) return this.servers.list().map(mcpSourceView);
    const view = this.servers.get(name);
    return view && mcpSourceView(view);
  }

  tools(name: string): SourceToolView[] | undefined {
    return this.status(name)?.tools;
  }

  async accept(name: string, selection: AcceptSelection): Promise<SourceView> {
    if (selection.hash !== undefined) throw refuse.badRequest(`An MCP server's tools are accepted by name: send no "hash" for "${name}".`);
    const { tools, risk } = selection;
    return this.#answer(name, 'Nothing accepted', this.servers.accept(name, { ...(tools && { tools }), ...(risk && { risk }) }));
  }

  async disable(name: string, tools?: string[]): Promise<SourceView> {
    return this.#answer(name, 'Nothing disabled', tools ? this.servers.disableTools(name, tools) : await this.servers.setEnabled(name, false));
  }

  async enable(name: string): Promise<SourceView> {
    return this.#answer(name, `The MCP server "${name}" cannot be enabled`, await this.servers.setEnabled(name, true));
  }

  async remove(name: string): Promise<void> {
    if (!(await this.servers.remove(name))) throw refuse.notFound(`An MCP server named "${name}"`);
  }

  #answer(name: string, refused: string, view: McpServerView | { problem: string } | undefined): SourceView {
    if (!view) throw refuse.notFound(`An MCP server named "${name}"`);
    if ('problem' in view) throw refuse.badRequest(`${refused}: ${view.problem}.`);
    return mcpSourceView(view);
  }
}

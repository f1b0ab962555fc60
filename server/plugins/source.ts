import type { HeldBecause, SourceStatus, SourceToolView, SourceView } from '../contract/sources.js';
import { refuse } from '../errors.js';
import type { AcceptSelection, ToolSource } from '../tools/sources/source.js';
import type { PluginManager, PluginStatus, PluginView } from './manager.js';

/**
 * A plugin's status in the sources' vocabulary. The one place the two sets of words meet: `GET /plugins` and the
 * `plugins` event keep the plugin's own words (`new`, `changed`, `crashed` …), which scripts rely on.
 */
const STATUS: Record<PluginStatus, { status: SourceStatus; held: HeldBecause | null }> = {
  loading: { status: 'starting', held: null },
  running: { status: 'running', held: null },
  new: { status: 'held', held: 'new' },
  changed: { status: 'held', held: 'changed' },
  disabled: { status: 'disabled', held: null },
  failed: { status: 'failed', held: null },
  crashed: { status: 'restarting', held: null },
};

/** A plugin as a tool source: accepted (and disabled) as a whole, with the files, tools and permissions shown. */
export function pluginSourceView(view: PluginView): SourceView {
  const { status, held } = STATUS[view.status];
  const accepted = view.accepted_at !== null && status !== 'held';
  const tools = view.tools.map(
    (tool): SourceToolView => ({
      name: tool.name,
      tool: tool.name,
      status: tool.registered ? 'active' : status === 'disabled' ? 'disabled' : status === 'held' ? 'held' : 'inactive',
      held_because: status === 'held' ? held : null,
      risk: tool.risk as SourceToolView['risk'],
      raised_because: tool.raised_because,
      accepted,
      description: tool.description,
      flags: tool.flags,
      problem: null,
    }),
  );
  return {
    kind: 'plugin',
    name: view.name,
    status,
    held_because: held,
    reason: view.reason,
    restarts: view.restarts,
    accepted_at: view.accepted_at,
    tools,
    detail: `/plugins/${encodeURIComponent(view.name)}`,
  };
}

/** The plugins adapter of ToolSource: the plugin manager seen through the one source lifecycle. */
export class PluginSource implements ToolSource {
  readonly kind = 'plugin' as const;

  constructor(private readonly plugins: PluginManager) {}

  start(): Promise<void> {
    return this.plugins.start();
  }

  stop(): Promise<void> {
    return this.plugins.close();
  }

  status(): SourceView[];
  status(name: string): SourceView | undefined;
  status(name?: string): SourceView[] | SourceView | undefined {
    if (name === undefined) return this.plugins.list().map(pluginSourceView);
    const view = this.plugins.get(name);
    return view && pluginSourceView(view);
  }

  tools(name: string): SourceToolView[] | undefined {
    return this.status(name)?.tools;
  }

  async accept(name: string, selection: AcceptSelection, by: string): Promise<SourceView> {
    // Security: a plugin's code runs in one process; the owner accepts what it may do as a whole, never a part.
    if (selection.tools !== undefined) throw refuse.badRequest(`A plugin is accepted as a whole: send no "tools" for "${name}".`);
    if (selection.risk !== undefined) throw refuse.badRequest(`A plugin's tools declare their own risk: send no "risk" for "${name}".`);
    return pluginSourceView(await this.plugins.accept(name, by, selection.hash));
  }

  async disable(name: string, tools?: string[]): Promise<SourceView> {
    if (tools !== undefined) throw refuse.badRequest(`A plugin is disabled as a whole: send no "tools" for "${name}".`);
    return pluginSourceView(await this.plugins.setDisabled(name, true));
  }

  async enable(name: string): Promise<SourceView> {
    return pluginSourceView(await this.plugins.setDisabled(name, false));
  }

  remove(name: string): Promise<void> {
    return this.plugins.remove(name);
  }
}

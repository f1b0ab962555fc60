import { SvelteSet } from 'svelte/reactivity';
import { api, describeError } from '../lib/api';
import type { ToolInfo, ToolList } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

export interface ToolGroup {
  category: string;
  tools: ToolInfo[];
}

/**
 * Every tool the gateway knows, with its on/off switch (the pause-all switch is a setting, in GatewaySettings).
 * Owned by the Tools view: it loads when the view opens and reloads when the gateway says tools changed elsewhere
 * (tray, CLI, another tab).
 */
export class ToolCatalog {
  tools = $state.raw<ToolInfo[]>([]);
  /** False until the first load has answered (or failed), so the view can say it is busy. */
  loaded = $state(false);
  error = $state<string | null>(null);
  /** Tools whose switch is being saved. */
  readonly #saving = new SvelteSet<string>();

  /** The tools by category (the view's search shows its best matches apart, above them). */
  readonly groups: ToolGroup[] = $derived.by(() => {
    const byCategory = new Map<string, ToolInfo[]>();
    for (const tool of this.tools) {
      const list = byCategory.get(tool.category) ?? [];
      list.push(tool);
      byCategory.set(tool.category, list);
    }
    return [...byCategory].sort(([a], [b]) => a.localeCompare(b)).map(([category, tools]) => ({ category, tools }));
  });

  /** Tools whose switch is being saved. */
  get saving(): ReadonlySet<string> {
    return this.#saving;
  }

  readonly enabledCount = $derived(this.tools.filter((t) => t.enabled).length);

  async load(): Promise<void> {
    try {
      const answer = await api<ToolList>('GET', '/tools');
      // A switch still being saved keeps the position the owner just gave it.
      const mine = new Map(this.tools.filter((t) => this.#saving.has(t.name)).map((t) => [t.name, t.enabled]));
      this.tools = answer.tools.map((t) => (mine.has(t.name) ? { ...t, enabled: mine.get(t.name)! } : t));
      this.error = null;
    } catch (error) {
      this.error = describeError(error);
    } finally {
      this.loaded = true;
    }
  }

  /** Switches a tool on or off everywhere; the switch moves at once and moves back if the gateway refuses. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    this.#replace(name, { enabled });
    this.#saving.add(name);
    try {
      const tool = await api<ToolInfo>('PATCH', `/tools/${encodeURIComponent(name)}`, { enabled });
      this.#replace(name, tool);
      this.error = null;
    } catch (error) {
      this.#replace(name, { enabled: !enabled });
      this.error = `Could not switch ${name} ${enabled ? 'on' : 'off'}: ${describeError(error)}`;
    } finally {
      this.#saving.delete(name);
    }
  }

  /** Reloads when tools change elsewhere or the event stream comes back; returns the unsubscribe. */
  listen(feed: GatewayFeed): () => void {
    // A plugin reload can announce many changes at once: they cost one reload per 150 ms at most. A client's tool set
    // (`client:<name>`) changes what that client sees, not this list; a pause or resume is the settings' business.
    const listChanged = ({ reason }: { reason: string }) => !reason.startsWith('client:') && reason !== 'paused' && reason !== 'resumed';
    return feed.follow(() => void this.load(), { tools: listChanged }, 150);
  }

  #replace(name: string, change: Partial<ToolInfo>): void {
    this.tools = this.tools.map((t) => (t.name === name ? { ...t, ...change } : t));
  }
}

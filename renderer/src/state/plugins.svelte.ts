import { SvelteMap } from 'svelte/reactivity';
import { api, describeError } from '../lib/api';
import type { PluginInfo, PluginList, PluginStatus } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

export type PluginAction = 'accept' | 'disable' | 'enable' | 'remove';

const ATTENTION: Record<PluginStatus, number> = { new: 0, changed: 0, failed: 1, crashed: 1, loading: 2, running: 3, disabled: 4 };

/** Plugins that wait for the owner first, then those in trouble, then the rest; by name within each. */
export function byAttention<T extends { name: string; status: PluginStatus }>(plugins: readonly T[]): T[] {
  return [...plugins].sort((a, b) => ATTENTION[a.status] - ATTENTION[b.status] || a.name.localeCompare(b.name));
}

const DONE: Record<PluginAction, string> = { accept: 'Accepted', disable: 'Disabled', enable: 'Enabled', remove: 'Removed' };

/**
 * The plugins the gateway found, bundled and the owner's, with what each needs from the owner. Owned by the Plugins
 * view: it loads when the view opens, reloads when plugin tools come and go or a plugin's status changes, and
 * carries out the owner's accept, disable, enable and remove.
 */
export class PluginBoard {
  plugins = $state.raw<PluginInfo[]>([]);
  /** The owner's plugins folder (`<data-dir>/plugins`). */
  folder = $state<string | null>(null);
  ignored = $state.raw<PluginList['ignored']>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** What was last done, read out to screen readers. */
  announcement = $state('');
  /** Plugins with an action on its way, and which. */
  readonly #busy = new SvelteMap<string, PluginAction>();
  /** Bumped by every load: an answer overtaken by a newer request is dropped. */
  #generation = 0;

  /** Waiting for the owner first, then those in trouble, then the rest. */
  readonly sorted = $derived(byAttention(this.plugins));

  readonly counts = $derived({
    running: this.plugins.filter((p) => p.status === 'running').length,
    waiting: this.plugins.filter((p) => p.status === 'new' || p.status === 'changed').length,
    trouble: this.plugins.filter((p) => p.status === 'failed' || p.status === 'crashed').length,
  });

  /** Some plugin is between states (starting, or restarting after a crash): worth asking again soon. */
  readonly settling = $derived(this.plugins.some((p) => p.status === 'loading' || p.status === 'crashed'));

  busy(name: string): PluginAction | undefined {
    return this.#busy.get(name);
  }

  async load(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const answer = await api<PluginList>('GET', '/plugins');
      if (generation !== this.#generation) return;
      this.plugins = answer.plugins;
      this.folder = answer.folder;
      this.ignored = answer.ignored ?? [];
      this.error = null;
    } catch (error) {
      if (generation === this.#generation) this.error = describeError(error);
    } finally {
      this.loaded = true;
    }
  }

  /** Reads the plugin folders again (for a change the gateway has not noticed yet), then the list. */
  async rescan(): Promise<void> {
    try {
      await api('POST', '/plugins/reload');
    } catch (error) {
      this.error = `Could not rescan the plugin folders: ${describeError(error)}`;
      return;
    }
    await this.load();
  }

  /** The owner's decision on one plugin; answers whether the gateway took it (a refusal shows in the banner). */
  async act(name: string, action: PluginAction): Promise<boolean> {
    if (this.#busy.has(name)) return false;
    this.#busy.set(name, action);
    try {
      const path = `/plugins/${encodeURIComponent(name)}`;
      if (action === 'remove') {
        await api('DELETE', path);
        this.plugins = this.plugins.filter((p) => p.name !== name);
      } else {
        // Accepting names the hash the owner was shown: a plugin that changed since is refused, not accepted unseen.
        const hash = this.plugins.find((p) => p.name === name)?.hash;
        const view = await api<PluginInfo>('POST', `${path}/${action}`, action === 'accept' && hash ? { hash } : undefined);
        this.plugins = this.plugins.map((p) => (p.name === name ? view : p));
      }
      this.error = null;
      this.announcement = `${DONE[action]} the plugin ${name}.`;
      return true;
    } catch (error) {
      this.error = `Could not ${action} the plugin ${name}: ${describeError(error)}`;
      return false;
    } finally {
      this.#busy.delete(name);
      // What the action set off (tools registered, a process started or stopped) shows in a fresh list.
      void this.load();
    }
  }

  /**
   * Reloads while the view is shown when plugin tools are registered or removed, when a plugin's status changes and
   * after the event stream reconnects; returns the unsubscribe.
   */
  listen(feed: GatewayFeed): () => void {
    const pluginTools = ({ reason }: { reason: string }) => reason === 'registered' || reason === 'unregistered';
    return feed.follow(() => void this.load(), { tools: pluginTools, plugins: true }, 150);
  }
}

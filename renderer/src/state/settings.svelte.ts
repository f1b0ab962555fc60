import { api, describeError } from '../lib/api';
import type { HistoryLimits, HistoryPreview, Settings, SettingsPatch } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

/** What a save answers: nothing when it worked, the gateway's message when it did not. */
export type SaveResult = { ok: true } | { ok: false; message: string };

/**
 * The gateway's own settings (roots, approval timeout, LLM endpoint, pause). One per session: the Settings view edits
 * it (each section saves its own keys with `save` and gets the gateway's message back when a value is refused), the
 * approval cards show paths relative to its roots, and the Live view's first-run hint names its data folder.
 */
export class GatewaySettings {
  settings = $state.raw<Partial<Settings> | null>(null);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** The pause switch's position while its save is on its way. */
  #pausing: boolean | undefined;

  /** Allowed folders; empty when the gateway does not say (older gateways), so paths are shown whole. */
  readonly roots: string[] = $derived.by(() => {
    const roots = this.settings?.roots;
    return Array.isArray(roots) ? roots.filter((r): r is string => typeof r === 'string' && r !== '') : [];
  });

  /** Whether every tool call is refused until the owner resumes (false until the settings have loaded). */
  get paused(): boolean {
    return this.settings?.paused === true;
  }

  async load(): Promise<void> {
    try {
      const settings = await api<Partial<Settings>>('GET', '/settings');
      // A pause switch still being saved keeps the position the owner just gave it.
      this.settings = this.#pausing === undefined ? settings : { ...settings, paused: this.#pausing };
      this.error = null;
    } catch (error) {
      this.error = describeError(error, 'show its settings');
    } finally {
      this.loaded = true;
    }
  }

  async save(patch: SettingsPatch): Promise<SaveResult> {
    try {
      const answer = await api<Partial<Settings>>('PATCH', '/settings', patch);
      this.settings = { ...this.settings, ...answer };
      return { ok: true };
    } catch (error) {
      return { ok: false, message: describeError(error, 'change this setting') };
    }
  }

  /** What the history limits `limits` would delete if saved; changes nothing. */
  async previewHistory(limits: HistoryLimits): Promise<HistoryPreview | { error: string }> {
    try {
      return await api<HistoryPreview>('POST', '/settings/history/preview', limits);
    } catch (error) {
      return { error: describeError(error, 'count what these limits delete') };
    }
  }

  /**
   * Pauses or resumes every tool. The switch moves at once and moves back if the gateway refuses; the answer then
   * carries the gateway's message. A later flip, still on its way, keeps its position whatever an earlier one answers.
   */
  async setPaused(paused: boolean): Promise<SaveResult> {
    const before = this.paused;
    this.#pausing = paused;
    this.#showPaused(paused);
    try {
      const answer = await api<Partial<Settings>>('PATCH', '/settings', { paused });
      this.settings = { ...this.settings, ...answer };
      if (this.#pausing !== paused) this.#showPaused(this.#pausing);
      return { ok: true };
    } catch (error) {
      if (this.#pausing === paused) this.#showPaused(before);
      return { ok: false, message: `Could not ${paused ? 'pause' : 'resume'} the tools: ${describeError(error)}` };
    } finally {
      if (this.#pausing === paused) this.#pausing = undefined;
    }
  }

  /** Where a key is locked (set by an environment variable or flag), or undefined when the dashboard may change it. */
  lockedBy(key: string): string | undefined {
    return this.settings?.locked?.[key];
  }

  #showPaused(paused: boolean | undefined): void {
    if (this.settings && paused !== undefined) this.settings = { ...this.settings, paused };
  }

  /** Picks up a pause, resume or settings change made from the tray, the CLI or another window. */
  listen(feed: GatewayFeed): () => void {
    const changed = ({ reason }: { reason: string }) => reason === 'paused' || reason === 'resumed' || reason === 'settings';
    return feed.follow(() => void this.load(), { tools: changed });
  }
}

import { api, describeError } from '../lib/api';
import { memorySearchPath, parseTags } from '../lib/memory';
import type { Memory, MemoryDraft, MemoryResult, SearchMethod } from '../lib/types';

/** Typing pauses this long before a search goes out, so every keystroke does not become a request. */
const TYPING_MS = 200;
const LIMIT = 50;

/**
 * The Memory view's data: the search (words, method, tag and category filters) and its results, best first, and
 * the owner's writes. Owned by the view; a later answer never overwrites a newer search's.
 */
export class MemoryBoard {
  q = $state('');
  method = $state<SearchMethod>('hybrid');
  /** As typed: comma-separated. */
  tagText = $state('');
  category = $state('');
  results = $state.raw<MemoryResult[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** The words the shown results answer (empty: the newest memories). */
  answered = $state('');

  readonly tags = $derived(parseTags(this.tagText));
  readonly filtered = $derived(this.tags.length > 0 || this.category.trim() !== '');

  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Searches again after a short pause (while typing); `now` skips the pause (method picked, Enter pressed). */
  refresh(now = false): void {
    clearTimeout(this.#timer);
    if (now) void this.load();
    else this.#timer = setTimeout(() => void this.load(), TYPING_MS);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#seq++;
  }

  async load(): Promise<void> {
    const seq = ++this.#seq;
    const q = this.q.trim();
    try {
      const path = memorySearchPath({ q, method: this.method, tags: this.tags, category: this.category, limit: LIMIT });
      const answer = await api<{ results: MemoryResult[] }>('GET', path);
      if (seq !== this.#seq) return;
      this.results = answer.results;
      this.answered = q;
      this.error = null;
    } catch (error) {
      if (seq === this.#seq) this.error = `Could not search the memory: ${describeError(error, 'keep memories')}`;
    } finally {
      if (seq === this.#seq) this.loaded = true;
    }
  }

  /** Stores a memory; answers the gateway's message when it refuses it. */
  async add(draft: MemoryDraft): Promise<string | null> {
    try {
      await api<Memory>('POST', '/memory', draft);
      await this.load();
      return null;
    } catch (error) {
      return describeError(error, 'keep memories');
    }
  }

  async update(id: number, draft: MemoryDraft): Promise<string | null> {
    try {
      const saved = await api<Memory>('PATCH', `/memory/${id}`, draft);
      // In place at once; the next search re-scores it.
      this.results = this.results.map((r) => (r.id === id ? { ...r, ...saved } : r));
      void this.load();
      return null;
    } catch (error) {
      return describeError(error);
    }
  }

  async remove(id: number): Promise<boolean> {
    try {
      await api('DELETE', `/memory/${id}`);
      this.results = this.results.filter((r) => r.id !== id);
      this.error = null;
      return true;
    } catch (error) {
      this.error = `Could not delete the memory: ${describeError(error)}`;
      return false;
    }
  }

  /** Shows only memories with this tag (added to the tag filter). */
  filterByTag(tag: string): void {
    if (this.tags.includes(tag)) return;
    this.tagText = [...this.tags, tag].join(', ');
    this.refresh(true);
  }

  filterByCategory(category: string): void {
    this.category = category;
    this.refresh(true);
  }

  clearFilters(): void {
    this.tagText = '';
    this.category = '';
    this.refresh(true);
  }
}

import { api, describeError } from '../lib/api';
import { exportFileName, importSummary, memorySearchPath, parseTags, type ImportReport } from '../lib/memory';
import type { Memory, MemoryDraft, MemoryResult, MemoryResults, SearchMethod } from '../lib/types';

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
  /** The client that wrote the memories shown; empty for any. */
  client = $state('');
  results = $state.raw<MemoryResult[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /** The words the shown results answer (empty: the newest memories). */
  answered = $state('');

  readonly tags = $derived(parseTags(this.tagText));
  readonly filtered = $derived(this.tags.length > 0 || this.category.trim() !== '' || this.client.trim() !== '');

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
      const path = memorySearchPath({ q, method: this.method, tags: this.tags, category: this.category, client: this.client, limit: LIMIT });
      const answer = await api<MemoryResults>('GET', path);
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

  /** Shows only memories this client wrote. */
  filterByClient(client: string): void {
    this.client = client;
    this.refresh(true);
  }

  clearFilters(): void {
    this.tagText = '';
    this.category = '';
    this.client = '';
    this.refresh(true);
  }
}

/**
 * Export and import of the whole memory as JSONL (the format of `pincer memory export|import`), with a line that
 * says how far it got and how it ended.
 */
export class MemoryTransfer {
  busy = $state(false);
  /** "Exporting… 1,200 memories", then the result; or the error. */
  status = $state('');
  failed = $state(false);

  /** Streams GET /memory/export, counting memories as they arrive, and saves the file. */
  async exportAll(): Promise<void> {
    await this.#run('Exporting…', async () => {
      const response = await fetch('/memory/export?format=jsonl', { credentials: 'same-origin' });
      if (!response.ok || !response.body) throw new Error(`the gateway answered HTTP ${response.status}`);
      const reader = response.body.getReader();
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      let count = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        chunks.push(value);
        for (const byte of value) if (byte === 10) count++;
        this.status = `Exporting… ${count.toLocaleString('en-US')} memories`;
      }
      const name = exportFileName(new Date());
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob(chunks, { type: 'application/x-ndjson' }));
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      return `Exported ${count.toLocaleString('en-US')} ${count === 1 ? 'memory' : 'memories'} to ${name}.`;
    });
  }

  /** Sends a JSONL file to POST /memory/import (the gateway reads it as it arrives). Answers whether it went through. */
  async importFile(file: File): Promise<boolean> {
    return this.#run(`Importing ${file.name}…`, async () => {
      const response = await fetch('/memory/import', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/x-ndjson', Accept: 'application/json' },
        body: file,
      });
      const body = (await response.json().catch(() => null)) as (ImportReport & { error?: { message: string } }) | null;
      if (!response.ok || !body) throw new Error(body?.error?.message ?? `the gateway answered HTTP ${response.status}`);
      return importSummary(file.name, body);
    });
  }

  async #run(start: string, work: () => Promise<string>): Promise<boolean> {
    this.busy = true;
    this.failed = false;
    this.status = start;
    try {
      this.status = await work();
      return true;
    } catch (error) {
      this.failed = true;
      this.status = `${start.replace('…', '')} failed: ${(error as Error).message}`;
      return false;
    } finally {
      this.busy = false;
    }
  }
}

import { api, describeError } from '../lib/api';
import { addImportReport, countLines, exportFileName, importSummary, lineBatches, memorySearchPath, parseTags, type ImportReport } from '../lib/memory';
import type { Memory, MemoryDraft, MemoryNewest, MemoryResult, MemoryResults, SearchMethod } from '../lib/types';

/** Typing pauses this long before a search goes out, so every keystroke does not become a request. */
const TYPING_MS = 200;
const LIMIT = 50;
/** An import sends this many lines a request, so its progress can be counted. */
const IMPORT_LINES_PER_REQUEST = 1000;
/** Bad lines listed after an import; the count covers every one. */
const IMPORT_ERRORS_KEPT = 100;

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
  /** Without words: how many memories the filters select in all (the results are the first pages of them). */
  total = $state<number | null>(null);
  /** Without words: the next page's cursor; null when every memory is shown. */
  nextCursor = $state<string | null>(null);
  loadingMore = $state(false);
  /** How many a page holds. */
  readonly pageSize = LIMIT;

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
      const answer = await api<MemoryResults | MemoryNewest>('GET', path);
      if (seq !== this.#seq) return;
      this.results = answer.results;
      this.answered = q;
      this.total = 'total' in answer ? answer.total : null;
      this.nextCursor = 'next_cursor' in answer ? answer.next_cursor : null;
      this.error = null;
    } catch (error) {
      if (seq === this.#seq) this.error = `Could not search the memory: ${describeError(error, 'keep memories')}`;
    } finally {
      if (seq === this.#seq) this.loaded = true;
    }
  }

  /** Appends the next page of the newest memories (the list pages on from its last memory, never from an offset). */
  async loadMore(): Promise<void> {
    const cursor = this.nextCursor;
    if (cursor === null || this.answered !== '' || this.loadingMore) return;
    const seq = this.#seq;
    this.loadingMore = true;
    try {
      const path = memorySearchPath({ q: '', method: this.method, tags: this.tags, category: this.category, client: this.client, limit: LIMIT, cursor });
      const answer = await api<MemoryNewest>('GET', path);
      // A new search started meanwhile: this page belongs to the old list.
      if (seq !== this.#seq) return;
      const shown = new Set(this.results.map((r) => r.id));
      this.results = [...this.results, ...answer.results.filter((r) => !shown.has(r.id))];
      this.total = answer.total;
      this.nextCursor = answer.next_cursor;
      this.error = null;
    } catch (error) {
      if (seq === this.#seq) this.error = `Could not load more memories: ${describeError(error, 'keep memories')}`;
    } finally {
      this.loadingMore = false;
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
      // In place at once; a search or a filter runs again (the edit can change the score, or what the filter
      // selects). The plain newest-first list keeps its place and the pages loaded so far: an edit does not move a
      // memory in it.
      this.results = this.results.map((r) => (r.id === id ? { ...r, ...saved } : r));
      if (this.answered !== '' || this.filtered) void this.load();
      return null;
    } catch (error) {
      return describeError(error);
    }
  }

  async remove(id: number): Promise<boolean> {
    try {
      await api('DELETE', `/memory/${id}`);
      this.results = this.results.filter((r) => r.id !== id);
      if (this.total !== null) this.total = Math.max(0, this.total - 1);
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
  /** While an import runs: lines sent and stored, of the file's lines. */
  progress = $state<{ done: number; total: number } | null>(null);
  /** The last import's bad lines, each with its number in the file and its own reason. */
  errors = $state.raw<ImportReport['errors']>([]);
  /** At most this many bad lines are listed. */
  readonly errorsKept = IMPORT_ERRORS_KEPT;

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

  /**
   * Sends a JSONL file to POST /memory/import a run of lines at a time, so the status counts the lines done while a
   * long import runs (the gateway answers each run once it is stored). The reports are summed, each bad line named
   * by its number in the file with its own reason. A run the gateway refuses stops the import there, saying which
   * lines went in. Answers whether every run went through.
   */
  async importFile(file: File): Promise<boolean> {
    this.errors = [];
    this.progress = null;
    return this.#run(`Importing ${file.name}…`, async () => {
      const total = await countLines(file);
      let report: ImportReport = { imported: 0, skipped: 0, failed: 0, errors: [] };
      this.progress = { done: 0, total };
      for await (const batch of lineBatches(file, IMPORT_LINES_PER_REQUEST)) {
        const response = await fetch('/memory/import', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/x-ndjson', Accept: 'application/json' },
          body: batch.text,
        });
        const body = (await response.json().catch(() => null)) as (ImportReport & { error?: { message: string } }) | null;
        if (!response.ok || !body) {
          const why = body?.error?.message ?? `the gateway answered HTTP ${response.status}`;
          const before = batch.first > 1 ? ` (lines 1–${(batch.first - 1).toLocaleString()} were imported)` : '';
          throw new Error(`lines ${batch.first.toLocaleString()}–${(batch.first + batch.lines - 1).toLocaleString()}: ${why}${before}`);
        }
        report = addImportReport(report, body, batch.first, IMPORT_ERRORS_KEPT);
        this.errors = report.errors;
        this.progress = { done: batch.first + batch.lines - 1, total };
        this.status = `Importing ${file.name}… ${this.progress.done.toLocaleString()} of ${total.toLocaleString()} lines`;
      }
      return importSummary(file.name, report);
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

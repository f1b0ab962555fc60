import type { Assignable } from '../contract/check.js';
import type { MemoryImportReport, Memory as WireMemory, MemoryResult, SearchMethod } from '../contract/memory.js';
import type { MemoryScope } from '../store/clients.js';
import type { ExactMemory, IndexedMemory, Memory as StoredMemory, MemoryFilter, MemoryPosition, MemoryStore, NewMemory } from '../store/memories.js';
import { ftsPhrase } from '../store/memories.js';
import { parseUntrustedJson } from '../util/json.js';
import { Corpus } from './corpus.js';
import { flagOf, type MemoryFlag } from './flags.js';
import { keywordSearch } from './keyword.js';
import { rankedSearch, type TermMatch } from './ranking.js';
import { runSteps, runStepsYielding, Turns, type Steps } from './steps.js';
import { normalize, queryTerms, tokenize } from './tokenize.js';

export type { MemoryFilter } from '../store/memories.js';
export type { MemoryFlag } from './flags.js';

/** A memory as every answer shows it: with `flagged` when its text reads as instructions to a model. */
export interface Memory extends StoredMemory {
  flagged: MemoryFlag | null;
}

export type { SearchMethod } from '../contract/memory.js';
export const SEARCH_METHODS: readonly SearchMethod[] = ['keyword', 'tfidf', 'fuzzy', 'hybrid'];

export type { TermMatch } from './ranking.js';

/** Why a memory was found: the terms that matched (exactly or at which distance) and those that did not. */
export interface MatchExplanation {
  method: SearchMethod;
  terms: TermMatch[];
  missing: string[];
}

export interface SearchResult extends Memory {
  score: number;
  match: MatchExplanation;
}

/** What the memory routes answer is the wire contract's: a field renamed here fails to compile. */
export type MemoryMatchesContract = [Assignable<Memory, WireMemory>, Assignable<SearchResult, MemoryResult>, Assignable<ImportReport, MemoryImportReport>];

export interface SearchOptions extends MemoryFilter {
  query: string;
  method?: SearchMethod;
  limit?: number;
}

/**
 * Security: denial of service. Any client may remember and recall without approval, on the gateway's only thread:
 * a memory's text is at most `content` bytes of UTF-8, 32 KiB (indexing costs in proportion to its terms, a Chinese
 * character's bigram included: 100,000 characters took from 0.2 s to seconds; at the limit, under 100 ms; and every
 * search that scores a memory reads all its terms), and a search matches at most the first `queryTerms` distinct
 * terms of its query (each costs index and vocabulary lookups; a pasted page of text is no better a query than its
 * start).
 */
export const MEMORY_LIMITS = { content: 32_768, tags: 32, tag: 64, category: 64, limit: 100, queryTerms: 32 } as const;

/** The distinct terms of a query a search matches, in order, and how many past MEMORY_LIMITS.queryTerms it leaves out. */
export function searchedTerms(query: string): { terms: string[]; dropped: number } {
  const terms = queryTerms(query);
  return { terms: terms.slice(0, MEMORY_LIMITS.queryTerms), dropped: Math.max(0, terms.length - MEMORY_LIMITS.queryTerms) };
}

/** A page of the newest memories (`GET /memory` without words). */
export interface MemoryPage {
  memories: Memory[];
  /** Every memory the filter and the reader's scope select, on every page. */
  total: number;
  /** Gives the next (older) page; null on the last. */
  next_cursor: string | null;
}

/** A cursor this gateway did not give out (or one altered on the way). */
export class MemoryCursorError extends Error {
  constructor() {
    super('The cursor is not one this gateway gave out; start again without it.');
    this.name = 'MemoryCursorError';
  }
}

/** Opaque to clients: the position of a page's last memory. */
function encodeCursor(position: MemoryPosition): string {
  return Buffer.from(`${position.created_at}.${position.id}`).toString('base64url');
}

function decodeCursor(cursor: string): MemoryPosition {
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const position = match ? { created_at: Number(match[1]), id: Number(match[2]) } : undefined;
  if (!position || !Number.isSafeInteger(position.created_at) || !Number.isSafeInteger(position.id) || position.id < 1) throw new MemoryCursorError();
  return position;
}

/** A memory write that cannot be stored; `field` names the bad one. */
export class MemoryInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'MemoryInputError';
  }
}

/**
 * The memory: writes (terms come from the one tokeniser) and the four search methods.
 * - keyword (keyword.ts): every query term present, as a term or part of one, ranked by BM25 as FTS5's bm25();
 * - tfidf: any query term, ranked by BM25 (Okapi BM25, k1 = 1.2, b = 0.75, IDF over the corpus);
 * - fuzzy: each query term matched to vocabulary terms within its edit distance (trigram candidates, then
 *   Damerau-Levenshtein); a memory scores the sum over query terms of its best match's similarity (1 − d/len);
 * - hybrid: exact and fuzzy matches in one BM25 score, a fuzzy match weighted down by its distance and never worth
 *   more than the exact term would be.
 * The corpus is every memory, or for a client limited to its own memories only those (corpus.ts): its scores and
 * matches never depend on memories it cannot see.
 */
export class Memories {
  /** Searches run in steps take turns (see searchInSteps). */
  readonly #turns = new Turns();

  /**
   * `scopeOf` says which memories a caller sees (a client limited to its own memories, or every one); a method
   * given no `reader` acts for the owner and sees every memory.
   */
  constructor(
    private readonly store: MemoryStore,
    private readonly scopeOf: (client: string) => MemoryScope = () => 'all',
  ) {}

  add(input: { content: unknown; tags?: unknown; category?: unknown; client: string; callId?: string | null }): Memory {
    const content = checkContent(input.content);
    const tags = checkTags(input.tags);
    const category = checkCategory(input.category);
    return flagged(this.store.add({ content, tags, category, client: input.client, call_id: input.callId ?? null, terms: indexTerms(content, tags, category) }));
  }

  /** Changes the fields given; answers undefined for an unknown id, or one the reader may not see. */
  update(id: number, patch: { content?: unknown; tags?: unknown; category?: unknown }, reader?: string): Memory | undefined {
    const current = this.#visible(this.store.get(id), reader);
    if (!current) return undefined;
    const content = patch.content === undefined ? current.content : checkContent(patch.content);
    const tags = patch.tags === undefined ? current.tags : checkTags(patch.tags);
    const category = patch.category === undefined ? current.category : checkCategory(patch.category);
    const updated = this.store.update(id, { content, tags, category, terms: indexTerms(content, tags, category) });
    return updated && flagged(updated);
  }

  /** Deletes one memory; false for an unknown id, or one the reader may not see. */
  remove(id: number, reader?: string): boolean {
    if (reader !== undefined && !this.#visible(this.store.get(id), reader)) return false;
    return this.store.remove(id);
  }

  get(id: number, reader?: string): Memory | undefined {
    const memory = this.#visible(this.store.get(id), reader);
    return memory && flagged(memory);
  }

  newest(filter: MemoryFilter, limit: number, reader?: string): Memory[] {
    const scoped = this.#scoped(filter, reader);
    return scoped ? this.store.newest(scoped, limit).map(flagged) : [];
  }

  /**
   * One page of the newest first, with how many the reader sees in all (the filter and the reader's scope applied)
   * and the cursor of the next page (null on the last). Throws MemoryCursorError for a cursor not made here.
   */
  newestPage(filter: MemoryFilter, limit: number, reader?: string, cursor?: string): MemoryPage {
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const scoped = this.#scoped(filter, reader);
    if (!scoped) return { memories: [], total: 0, next_cursor: null };
    const rows = this.store.newest(scoped, limit + 1, before);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      memories: page.map(flagged),
      total: this.store.count(scoped),
      next_cursor: rows.length > limit && last ? encodeCursor({ created_at: Date.parse(last.created_at), id: last.id }) : null,
    };
  }

  /** The client a reader is limited to, or undefined when it sees every memory. */
  limitedTo(reader: string | undefined): string | undefined {
    return reader !== undefined && this.scopeOf(reader) === 'own' ? reader : undefined;
  }

  /** Another client's memory is answered as unknown: a limited client does not even learn that it exists. */
  #visible(memory: StoredMemory | undefined, reader: string | undefined): StoredMemory | undefined {
    const only = this.limitedTo(reader);
    return memory && (only === undefined || memory.client === only) ? memory : undefined;
  }

  /** The filter narrowed to what the reader may see; undefined when it asks only for what it may not. */
  #scoped(filter: MemoryFilter, reader: string | undefined): MemoryFilter | undefined {
    const only = this.limitedTo(reader);
    if (only === undefined) return filter;
    if (filter.client !== undefined && filter.client !== only) return undefined;
    return { ...filter, client: only };
  }

  /** Every memory the reader may see, oldest id first, a page at a time: an export in constant memory. */
  *exportPages(reader?: string): Generator<Memory[]> {
    const filter = this.#scoped({}, reader)!;
    for (const page of this.store.exportPages(filter)) yield page.map(flagged);
  }

  /**
   * Imports JSONL, one memory a line (an export's lines, or just `{"content": …}`), in batches of one transaction
   * each, so an import of any size holds one batch in memory. A line with an `id` keeps it and its dates; an id
   * that already exists changes nothing and counts as skipped, so importing an export again duplicates nothing.
   * Lines without `client` are recorded as written by `importer`.
   */
  async import(lines: AsyncIterable<string>, importer: string): Promise<ImportReport> {
    const report: ImportReport = { imported: 0, skipped: 0, failed: 0, errors: [] };
    let batch: Array<NewMemory | ExactMemory> = [];
    const flush = async () => {
      const rows = batch;
      batch = [];
      this.store.batch(() => {
        for (const row of rows) {
          if (!('id' in row)) {
            this.store.add(row);
            report.imported++;
          } else if (this.store.addExact(row)) report.imported++;
          else report.skipped++;
        }
      });
      // Calls keep being answered while a large import runs.
      await new Promise((resolve) => setImmediate(resolve));
    };
    let number = 0;
    for await (const line of lines) {
      number++;
      if (line.trim() === '') continue;
      try {
        batch.push(importedLine(line, importer));
      } catch (error) {
        report.failed++;
        if (report.errors.length < IMPORT_ERRORS_SHOWN) report.errors.push({ line: number, message: (error as Error).message });
        continue;
      }
      if (batch.length >= IMPORT_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    return report;
  }

  /** Searches at once: the caller's thread is held until it is done (the work is bounded by MEMORY_LIMITS and the search's caps). */
  search(options: SearchOptions & { reader?: string }): SearchResult[] {
    return runSteps(this.#search(options));
  }

  /**
   * Searches in steps, letting the event loop run between them, one search at a time (see steps.ts): what a client
   * may call without approval (`recall`) runs this way, so no search holds the gateway's thread for long, however
   * many arrive at once. Stops once `signal` aborts.
   */
  searchInSteps(options: SearchOptions & { reader?: string }, signal?: AbortSignal): Promise<SearchResult[]> {
    return this.#turns.run(() => runStepsYielding(this.#search(options), signal), signal);
  }

  *#search(options: SearchOptions & { reader?: string }): Steps<SearchResult[]> {
    const method = options.method ?? 'hybrid';
    const limit = options.limit ?? 10;
    const { terms } = searchedTerms(options.query);
    if (terms.length === 0) return [];
    const filter = this.#scoped(
      {
        ...(options.tags && { tags: options.tags.map((t) => normalize(t).trim()) }),
        ...(options.category !== undefined && { category: normalize(options.category).trim() }),
        ...(options.client !== undefined && { client: options.client }),
      },
      options.reader,
    );
    if (!filter) return [];
    const corpus = new Corpus(this.store, this.limitedTo(options.reader));
    if (method === 'tfidf') {
      const ranked = tfidfTerms(corpus, terms);
      yield;
      const rows = yield* corpus.ranked(ranked.map(ftsPhrase).join(' OR '), ranked, filter, limit);
      const results: SearchResult[] = [];
      for (const row of rows) {
        yield;
        results.push(result(row, row.score, explainExact(method, terms, row.terms)));
      }
      return results;
    }
    // Keyword (keyword.ts); fuzzy and hybrid (ranking.ts): every memory holding a variant of a query term, scored
    // from its own terms.
    const found = method === 'keyword' ? yield* keywordSearch(corpus, terms, filter, limit) : yield* rankedSearch(corpus, method, options.query, terms, filter, limit);
    const results: SearchResult[] = [];
    for (const r of found) {
      yield;
      results.push(result(r.memory, r.score, { method, terms: r.terms, missing: r.missing }));
    }
    return results;
  }
}

/**
 * The terms tfidf asks the index for: every query term, unless together they are held more often than one index
 * query may read (Corpus.matchPostings); then the rarest up to that, the commonest (which weigh least) left out.
 */
function tfidfTerms(corpus: Corpus, terms: readonly string[]): string[] {
  const df = corpus.statistics.documentFrequencies(terms);
  const budget = corpus.matchPostings();
  let postings = 0;
  const kept = new Set<string>();
  for (const term of [...terms].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0))) {
    postings += df.get(term) ?? 0;
    if (kept.size > 0 && postings > budget) break;
    kept.add(term);
  }
  return terms.filter((term) => kept.has(term));
}

export interface ImportReport {
  imported: number;
  skipped: number;
  failed: number;
  /** The first few lines that could not be imported, by line number (from 1). */
  errors: Array<{ line: number; message: string }>;
}

const IMPORT_BATCH = 500;
const IMPORT_ERRORS_SHOWN = 20;
const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** One import line as a row to store; throws with a message naming the bad field. */
function importedLine(line: string, importer: string): NewMemory | ExactMemory {
  let value: unknown;
  try {
    value = parseUntrustedJson(line, 8, 'The line');
  } catch (error) {
    // The parser's own reason (where the text breaks off, a nesting too deep), worded for a report of lines.
    throw new Error((error as Error).message.replace(/^The line is not valid JSON/, 'not JSON'));
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('each line must be a JSON object with "content"');
  const v = value as Record<string, unknown>;
  const content = checkContent(v.content);
  const tags = checkTags(v.tags);
  const category = checkCategory(v.category);
  const client = v.client ?? importer;
  if (typeof client !== 'string' || !CLIENT_NAME.test(client)) throw new Error('"client" must be a client name');
  const callId = v.call_id ?? null;
  if (callId !== null && (typeof callId !== 'string' || callId.length > 100)) throw new Error('"call_id" must be a call id or null');
  const now = Date.now();
  const createdAt = importedDate(v.created_at, 'created_at', now);
  const row: NewMemory = { content, tags, category, client, call_id: callId, terms: indexTerms(content, tags, category), created_at: createdAt };
  if (v.id === undefined || v.id === null) return row;
  if (typeof v.id !== 'number' || !Number.isSafeInteger(v.id) || v.id < 1) throw new Error('"id" must be a positive whole number');
  return { ...row, id: v.id, created_at: createdAt, updated_at: importedDate(v.updated_at, 'updated_at', createdAt) };
}

function importedDate(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`"${field}" must be an ISO 8601 date-time`);
  return ms;
}

/** What is indexed: the content's terms, then the tags' and the category's. */
function indexTerms(content: string, tags: readonly string[], category: string | null): string[] {
  return [...tokenize(content), ...tags.flatMap(tokenize), ...(category ? tokenize(category) : [])];
}

function result(memory: IndexedMemory, score: number, match: MatchExplanation): SearchResult {
  const { terms: _terms, ...rest } = memory;
  return { ...flagged(rest), score: Math.round(score * 10_000) / 10_000, match };
}

/** Judged when shown, not only when stored: a rule added later covers every memory, imported ones included. */
function flagged(memory: StoredMemory): Memory {
  return { ...memory, flagged: flagOf(memory.content) };
}

function explainExact(method: SearchMethod, terms: readonly string[], memoryTerms: readonly string[]): MatchExplanation {
  const present = new Set(memoryTerms);
  return {
    method,
    terms: terms.filter((t) => present.has(t)).map((t) => ({ query: t, term: t, distance: 0 })),
    missing: terms.filter((t) => !present.has(t)),
  };
}

function checkContent(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new MemoryInputError('content', 'content must be a non-empty string.');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MEMORY_LIMITS.content) {
    const [size, limit] = [bytes, MEMORY_LIMITS.content].map((n) => n.toLocaleString('en-US'));
    throw new MemoryInputError('content', `content is ${size} bytes of UTF-8; a memory holds at most ${limit} (32 KiB): split it into several.`);
  }
  return value;
}

/** Tags are kept trimmed, NFKC and lower case, without repeats. */
function checkTags(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string')) throw new MemoryInputError('tags', 'tags must be a list of strings.');
  const tags = [...new Set((value as string[]).map((t) => normalize(t).trim()).filter((t) => t !== ''))];
  if (tags.length > MEMORY_LIMITS.tags) throw new MemoryInputError('tags', `at most ${MEMORY_LIMITS.tags} tags.`);
  const long = tags.find((t) => t.length > MEMORY_LIMITS.tag);
  if (long) throw new MemoryInputError('tags', `tag "${long.slice(0, 20)}…" is longer than ${MEMORY_LIMITS.tag} characters.`);
  return tags;
}

function checkCategory(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new MemoryInputError('category', 'category must be a string.');
  const category = normalize(value).trim();
  if (category.length > MEMORY_LIMITS.category) throw new MemoryInputError('category', `category is longer than ${MEMORY_LIMITS.category} characters.`);
  return category === '' ? null : category;
}

/** Tags as a query gives them: one comma-separated value. */
export function parseTagList(value: string): string[] {
  return [...new Set(value.split(',').map((t) => normalize(t).trim()).filter((t) => t !== ''))];
}

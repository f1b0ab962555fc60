import type { MemoryImportReport, MemoryMatch, SearchMethod, TermMatch } from './types';

// The Memory view's words and query strings. Pure, so the explanations are tested without a page.

export const SEARCH_METHODS: readonly { method: SearchMethod; label: string; hint: string }[] = [
  { method: 'hybrid', label: 'Hybrid', hint: 'exact and near matches in one score (best for most searches)' },
  { method: 'keyword', label: 'Keyword', hint: 'every word must be present' },
  { method: 'tfidf', label: 'TF-IDF', hint: 'any word, rare words count most (BM25)' },
  { method: 'fuzzy', label: 'Fuzzy', hint: 'words spelt a little differently (typos)' },
];

export interface MemoryQuery {
  q: string;
  method: SearchMethod;
  tags: string[];
  category: string;
  /** The client that wrote the memories ("owner" for the dashboard and the CLI); empty for any. */
  client?: string;
  limit: number;
  /** Without words: the page after the one that gave this cursor. */
  cursor?: string;
}

/** `GET /memory?…` for a query; without words it lists the newest memories (the method then does not apply). */
export function memorySearchPath(query: MemoryQuery): string {
  const params = new URLSearchParams();
  const q = query.q.trim();
  if (q !== '') {
    params.set('q', q);
    params.set('method', query.method);
  }
  if (query.tags.length > 0) params.set('tags', query.tags.join(','));
  if (query.category.trim() !== '') params.set('category', query.category.trim());
  if (query.client?.trim()) params.set('client', query.client.trim());
  params.set('limit', String(query.limit));
  if (q === '' && query.cursor) params.set('cursor', query.cursor);
  return `/memory?${params.toString()}`;
}

/** Tags as the owner types them: separated by commas, trimmed, lower case, no repeats, no empties. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
}

export type TermKind = 'exact' | 'part' | 'near' | 'missing';

/** One query word and what it found in a memory, as the result's explanation lists it. */
export interface ExplainedTerm {
  kind: TermKind;
  query: string;
  /** The memory's word it matched (absent for a missing one). */
  term?: string;
  distance: number;
  /** "lobstr → lobster, 1 edit"; "envir → environment, part of the word" */
  text: string;
}

const KIND_ORDER: Record<TermKind, number> = { exact: 0, part: 1, near: 2, missing: 3 };
const kindOf = (t: TermMatch): TermKind => (t.distance === 0 ? 'exact' : t.part ? 'part' : 'near');

/**
 * Why a result was found, one entry per query word: exact matches first, then words found as part of a longer one,
 * then near ones (closest first), then the words the memory lacks. A query word matched in more than one way shows
 * only its best.
 */
export function explainMatch(match: MemoryMatch | null): ExplainedTerm[] {
  if (!match) return [];
  const best = new Map<string, TermMatch>();
  for (const t of match.terms) {
    const seen = best.get(t.query);
    if (!seen || KIND_ORDER[kindOf(t)] < KIND_ORDER[kindOf(seen)] || (kindOf(t) === kindOf(seen) && t.distance < seen.distance)) best.set(t.query, t);
  }
  const found: ExplainedTerm[] = [...best].map(([query, t]) => {
    const kind = kindOf(t);
    const text = kind === 'exact' ? (t.term === query ? query : `${query} = ${t.term}`) : `${query} → ${t.term}, ${kind === 'part' ? 'part of the word' : editWord(t.distance)}`;
    return { kind, query, term: t.term, distance: t.distance, text };
  });
  found.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.distance - b.distance);
  const missing: ExplainedTerm[] = match.missing
    .filter((q) => !best.has(q))
    .map((query) => ({ kind: 'missing', query, distance: Number.POSITIVE_INFINITY, text: query }));
  return [...found, ...missing];
}

function editWord(distance: number): string {
  return distance === 1 ? '1 edit' : `${distance} edits`;
}

/** A one-line reading of the explanation, for screen readers and the result's title. */
export function matchSummary(match: MemoryMatch | null): string {
  const terms = explainMatch(match);
  if (terms.length === 0) return '';
  const of = (kind: TermKind) => terms.filter((t) => t.kind === kind).map((t) => t.text);
  const parts = [
    of('exact').length > 0 ? `exact: ${of('exact').join(', ')}` : '',
    of('part').length > 0 ? `part of a word: ${of('part').join('; ')}` : '',
    of('near').length > 0 ? `near: ${of('near').join('; ')}` : '',
    of('missing').length > 0 ? `not found: ${of('missing').join(', ')}` : '',
  ];
  return parts.filter((p) => p !== '').join(' · ');
}

/**
 * A score for reading, not for arithmetic: BM25 and similarity scores have no fixed scale, so three significant
 * figures are enough to see which result is ahead.
 */
export function formatScore(score: number | null): string {
  if (score === null || !Number.isFinite(score)) return '—';
  if (score === 0) return '0';
  const abs = Math.abs(score);
  if (abs >= 100) return score.toFixed(0);
  return Number(score.toPrecision(3)).toString();
}

/** Each result's share of the best score, 0–1, for the small bar beside it (the first result fills it). */
export function scoreShare(score: number | null, best: number | null): number {
  if (score === null || best === null || !(best > 0) || !(score > 0)) return 0;
  return Math.min(1, score / best);
}

/** What `POST /memory/import` answers. */
export type ImportReport = MemoryImportReport;

/** The import's result in one line: "Imported 12 memories from a.jsonl; 3 were already here and skipped; 1 line failed (line 4: …)." */
export function importSummary(file: string, report: ImportReport): string {
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  const parts = [`Imported ${plural(report.imported, 'memory', 'memories')} from ${file}`];
  if (report.skipped > 0) parts.push(`${plural(report.skipped, 'was', 'were')} already here and skipped`);
  if (report.failed > 0) {
    const first = report.errors[0];
    parts.push(`${plural(report.failed, 'line', 'lines')} failed${first ? ` (line ${first.line}: ${first.message.replace(/\.$/, '')})` : ''}`);
  }
  return `${parts.join('; ')}.`;
}

/** A run of a JSONL file's lines, as one `POST /memory/import` sends them. */
export interface LineBatch {
  /** The number of its first line in the file, from 1. */
  first: number;
  lines: number;
  text: string;
}

/** How many lines a file holds: its newlines, and a last line that does not end in one. */
export async function countLines(file: Blob): Promise<number> {
  const reader = file.stream().getReader();
  let lines = 0;
  let last = 10;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const byte of value) if (byte === 10) lines++;
    if (value.length > 0) last = value[value.length - 1]!;
  }
  return last === 10 ? lines : lines + 1;
}

/**
 * A file's lines in runs of at most `size`, read as they are needed (a file of any size is never held whole). Empty
 * lines are kept, so a line's number in a run plus the run's `first` is its number in the file.
 */
export async function* lineBatches(file: Blob, size: number): AsyncGenerator<LineBatch> {
  const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  let pending: string[] = [];
  let first = 1;
  const batch = (): LineBatch => {
    const out = { first, lines: pending.length, text: `${pending.join('\n')}\n` };
    first += pending.length;
    pending = [];
    return out;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const parts = (rest + value).split('\n');
    rest = parts.pop()!;
    for (const line of parts) {
      pending.push(line);
      if (pending.length === size) yield batch();
    }
  }
  if (rest !== '') pending.push(rest);
  if (pending.length > 0) yield batch();
}

/** Adds one run's report to the file's: counts summed, each error's line made the file's, at most `maxErrors` kept. */
export function addImportReport(total: ImportReport, part: ImportReport, first: number, maxErrors: number): ImportReport {
  const errors = [...total.errors, ...part.errors.map((e) => ({ line: e.line + first - 1, message: e.message }))].slice(0, maxErrors);
  return { imported: total.imported + part.imported, skipped: total.skipped + part.skipped, failed: total.failed + part.failed, errors };
}

/** The name an export is saved under: `pincer-memories-2026-05-01.jsonl`. */
export function exportFileName(now: Date): string {
  return `pincer-memories-${now.toISOString().slice(0, 10)}.jsonl`;
}

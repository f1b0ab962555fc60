/** The memory on the wire: `GET|POST /memory`, `GET|PATCH|DELETE /memory/{id}`, `GET /search`. */

export type SearchMethod = 'hybrid' | 'keyword' | 'tfidf' | 'fuzzy';

/** Why a memory was flagged: the rule that matched and what it means. */
export interface MemoryFlag {
  rule: string;
  reason: string;
}

/** A memory as every answer shows it. */
export interface Memory {
  id: number;
  content: string;
  tags: string[];
  category: string | null;
  /** The client that wrote it ("owner" for the dashboard and the CLI). */
  client: string;
  /** The call that wrote it, when a tool did. */
  call_id: string | null;
  created_at: string;
  updated_at: string;
  /** Set when the text reads as instructions to a model ("ignore previous instructions", "send … to http…"). */
  flagged: MemoryFlag | null;
}

/**
 * One query term and the memory term it matched; `distance` 0 is an exact match. With `part`, the query term is part
 * of the memory's term (a word typed in part, or a piece of a longer one) and `distance` is the characters beyond it.
 */
export interface TermMatch {
  query: string;
  term: string;
  distance: number;
  part?: true;
}

/** Why a memory was found: the terms that matched (exactly or at which distance) and those that did not. */
export interface MemoryMatch {
  method: SearchMethod;
  terms: TermMatch[];
  /** Query terms the memory does not contain, even approximately. */
  missing: string[];
}

/** `GET /memory`: with a query, scored and explained best first; without one, the newest with null scores. */
export interface MemoryResult extends Memory {
  score: number | null;
  match: MemoryMatch | null;
}

/** `GET /memory`. */
export interface MemoryResults {
  results: MemoryResult[];
}

/** `GET /memory` without `q`: a page of the newest first; `&cursor=` with `next_cursor` gives the next (older) one. */
export interface MemoryNewest extends MemoryResults {
  /** How many memories the filters select, for this caller, across every page. */
  total: number;
  /** null on the last page. */
  next_cursor: string | null;
}

/** `POST /memory/import`: memories added, lines skipped (already here) and lines that failed, with why. */
export interface MemoryImportReport {
  imported: number;
  skipped: number;
  failed: number;
  errors: { line: number; message: string }[];
}

/** What the owner writes (POST /memory, PATCH /memory/{id}). */
export interface MemoryDraft {
  content: string;
  tags: string[];
  category: string | null;
}

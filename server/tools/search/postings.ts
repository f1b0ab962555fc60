import { FIELD_COUNT } from './fields.js';

/** A term's count in one field, packed four bits a field into one small integer per tool (seven fields: 28 bits). */
const TF_BITS = 4;
const TF_MAX = (1 << TF_BITS) - 1;

/** BM25F's per-field part: how much a field counts, and how much its length is normalised (b). */
export interface FieldWeights {
  weight: readonly number[];
  b: readonly number[];
}

/**
 * The inverted index: for each term, the tools holding it with its count in each field, and each tool's field
 * lengths. Tools are numbered by the caller (small integers, reused); adding and removing one touches only its own
 * terms. The per-tool length normalisation BM25F needs is worked out again lazily after a change.
 */
export class Postings {
  /** Term → flat pairs [tool, packed counts, tool, packed counts, …]. */
  readonly #lists = new Map<string, number[]>();
  readonly #lengths: (readonly number[] | undefined)[] = [];
  readonly #sums = new Float64Array(FIELD_COUNT);
  readonly #fields: FieldWeights;
  #count = 0;
  #norms = new Float64Array(0);
  #stale = true;

  constructor(fields: FieldWeights) {
    this.#fields = fields;
  }

  /** How many tools are indexed. */
  get count(): number {
    return this.#count;
  }

  /** Indexes tool `doc` (not yet indexed) with its terms by field; answers its distinct terms. */
  add(doc: number, fields: readonly (readonly string[])[]): string[] {
    const counts = new Map<string, number[]>();
    const lengths = fields.map((terms) => terms.length);
    fields.forEach((terms, field) => {
      for (const term of terms) {
        let byField = counts.get(term);
        if (!byField) counts.set(term, (byField = new Array<number>(FIELD_COUNT).fill(0)));
        byField[field]! += 1;
      }
    });
    for (const [term, byField] of counts) {
      let packed = 0;
      for (let f = 0; f < FIELD_COUNT; f++) packed |= Math.min(TF_MAX, byField[f]!) << (TF_BITS * f);
      let list = this.#lists.get(term);
      if (!list) this.#lists.set(term, (list = []));
      list.push(doc, packed);
    }
    this.#lengths[doc] = lengths;
    for (let f = 0; f < FIELD_COUNT; f++) this.#sums[f]! += lengths[f] ?? 0;
    this.#count++;
    this.#stale = true;
    return [...counts.keys()];
  }

  /** Takes tool `doc` out; `terms` are those `add` answered for it. */
  remove(doc: number, terms: readonly string[]): void {
    const lengths = this.#lengths[doc];
    if (!lengths) return;
    for (const term of terms) {
      const list = this.#lists.get(term);
      if (!list) continue;
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === doc) {
          list.splice(i, 2);
          break;
        }
      }
      if (list.length === 0) this.#lists.delete(term);
    }
    for (let f = 0; f < FIELD_COUNT; f++) this.#sums[f]! -= lengths[f] ?? 0;
    this.#lengths[doc] = undefined;
    this.#count--;
    this.#stale = true;
  }

  has(term: string): boolean {
    return this.#lists.has(term);
  }

  /** The tools holding `term`: flat pairs of tool number and packed field counts (see `fieldCount`). */
  list(term: string): readonly number[] | undefined {
    return this.#lists.get(term);
  }

  /** BM25's inverse document frequency of `term`. */
  idf(term: string): number {
    const df = (this.#lists.get(term)?.length ?? 0) / 2;
    return Math.log(1 + (this.#count - df + 0.5) / (df + 0.5));
  }

  /**
   * Per tool and field, what a count there is worth: the field's weight over its length normalisation
   * (1 − b + b·length/average). Indexed `doc * FIELD_COUNT + field`.
   */
  norms(): Float64Array {
    if (!this.#stale) return this.#norms;
    const size = this.#lengths.length * FIELD_COUNT;
    if (this.#norms.length < size) this.#norms = new Float64Array(Math.max(size, this.#norms.length * 2));
    const averages = [...this.#sums].map((sum) => (this.#count > 0 ? sum / this.#count : 0));
    for (let doc = 0; doc < this.#lengths.length; doc++) {
      const lengths = this.#lengths[doc];
      if (!lengths) continue;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const average = averages[f]!;
        const b = this.#fields.b[f]!;
        const relative = average > 0 ? lengths[f]! / average : 0;
        this.#norms[doc * FIELD_COUNT + f] = this.#fields.weight[f]! / (1 - b + b * relative);
      }
    }
    this.#stale = false;
    return this.#norms;
  }
}

/** Field `field`'s count in a packed entry. */
export function fieldCount(packed: number, field: number): number {
  return (packed >>> (TF_BITS * field)) & TF_MAX;
}

import type { SourceKind, SourceView } from '../../contract/sources.js';
import { refuse } from '../../errors.js';
import type { ToolSource } from './source.js';

/** Every kind of tool source the gateway has: started and stopped as a whole, listed as one. */
export class SourceRegistry {
  readonly #sources = new Map<SourceKind, ToolSource>();

  constructor(
    sources: readonly ToolSource[],
    private readonly log: (line: string) => void = () => undefined,
  ) {
    for (const source of sources) this.#sources.set(source.kind, source);
  }

  kinds(): SourceKind[] {
    return [...this.#sources.keys()];
  }

  /** The adapter of `kind`; NOT_FOUND for a kind this gateway does not have. */
  get(kind: string): ToolSource {
    const source = this.#sources.get(kind as SourceKind);
    if (!source) throw refuse.notFound(`A kind of tool source named "${kind}" (known: ${this.kinds().join(', ')})`);
    return source;
  }

  /** Every source of every kind, by kind then name. */
  list(): SourceView[] {
    return [...this.#sources.values()].flatMap((source) => source.status());
  }

  /** Starts every kind; one that fails to start is logged and holds up none of the others. */
  async start(): Promise<void> {
    await Promise.all(
      [...this.#sources.values()].map(async (source) => {
        try {
          await source.start();
        } catch (error) {
          this.log(`pincer: the ${source.kind} tool sources could not start: ${(error as Error).message}`);
        }
      }),
    );
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.#sources.values()].map((source) => source.stop()));
  }
}

import type { SourceKind, SourceRisk, SourceToolView, SourceView } from '../../contract/sources.js';

/** What the owner accepts: tools of the source (all that wait, without `tools`), their rating, the hash they saw. */
export interface AcceptSelection {
  tools?: string[];
  risk?: SourceRisk;
  hash?: string;
}

/**
 * One kind of tool source behind one lifecycle: plugins and imported MCP servers are two adapters of it, and the
 * next kind is one more. Each source of the kind has a name, a status from one vocabulary, tools that are active or
 * held back (refused with TOOL_HELD) until the owner accepts them, and the owner's acceptances in the one acceptance
 * store. Unknown names and refused requests throw the gateway's errors (NOT_FOUND, INVALID_ARGUMENTS, …).
 */
export interface ToolSource {
  readonly kind: SourceKind;
  /** Starts every source of this kind in the background: one slow or failing source holds up no other. */
  start(): Promise<void>;
  /** Stops them all and takes their tools away. */
  stop(): Promise<void>;
  /** Every source of this kind (no name), or the one named (undefined when there is none). */
  status(): SourceView[];
  status(name: string): SourceView | undefined;
  /** The named source's tools; undefined when there is no such source. */
  tools(name: string): SourceToolView[] | undefined;
  /** The owner accepts the source, or tools of it, as they are now; `by` names who (kept with the acceptance). */
  accept(name: string, selection: AcceptSelection, by: string): Promise<SourceView>;
  /** The owner turns the source off, or only the tools named; they stay off until enabled or accepted again. */
  disable(name: string, tools?: string[]): Promise<SourceView>;
  enable(name: string): Promise<SourceView>;
  /** Stops the source, forgets what the owner accepted of it and removes it from where it is configured. */
  remove(name: string): Promise<void>;
}

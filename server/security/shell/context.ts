/**
 * What the parts of the shell analysis share: the command line being read, and the script (one level of nesting)
 * whose words they judge. The walk in script.ts implements `Script`; the checks in redirects.ts, variables.ts,
 * wrapped.ts, nested.ts and reach.ts take it as their first argument, so none of them imports the walk.
 */
import type { Node } from 'web-tree-sitter';
import type { OutsidePath, PolicyDecision, RunFile } from '../../decision.js';
import type { Facts, Result, Stdin } from './facts.js';
import type { FolderWalks } from './folder-walks.js';
import type { ShellPaths } from './named-paths.js';
import type { LineGlobs } from './operand-places.js';
import type { Word, WordScope } from './words.js';

/** One command line (and the scripts nested in it), for one `analyze` call. */
export interface LineReader {
  readonly paths: ShellPaths;
  /** The real folder the command starts in. */
  readonly cwd: string;
  /** Syntax nodes visited so far, against a line built to exhaust the check. */
  nodes: number;
  /** Paths outside the roots the command names, real (symlinks followed). */
  readonly outside: Map<string, OutsidePath>;
  /** Whether anything but reading outside the roots made the command ask or refuse. */
  otherConcerns: boolean;
  /** Whether what the command reaches cannot be told from its text (a script, a substitution, an unknown program). */
  unknownReach: boolean;
  /** Whether it talks to the network. */
  network: boolean;
  /** Whether a word of it leads into Pincer's own code (read-only folders). */
  namesCode: boolean;
  /** Files the command runs or takes its instructions from (a Makefile, package.json, the script itself). */
  readonly runs: RunFile[];
  /** Files it writes (real paths), as far as its text says. */
  readonly writes: Set<string>;
  /** The folder walks of recursive reads, answered from the walks done before this reading (folder-walks.ts). */
  readonly walks: FolderWalks;
  /** The line's globs, expanded against the disk within one budget of names read (operand-places.ts). */
  readonly globs: LineGlobs;
  /** Analyzes a script nested `depth` levels deep; `positional` are its `$0`, `$1`… (`sh -c SCRIPT NAME ARGS…`). */
  script(source: string, depth: number, positional?: readonly Word[]): Result;
}

/** The state of one script: decisions so far, variables assigned, folders `cd` went to; and its walk. */
export interface Script {
  readonly reader: LineReader;
  readonly depth: number;
  readonly paths: ShellPaths;
  readonly scope: WordScope;
  readonly vars: Map<string, string[]>;
  /** Read-only programs seen, for the reason of an allow. */
  readonly programs: string[];
  readonly cwdGuesses: string[];
  /** Functions the script defines: a call to one runs its body, checked where it is defined. */
  readonly functions: ReadonlySet<string>;
  /** Folders a relative path may be read from: where the command starts, and where a `cd` in the line went. */
  readonly bases: string[];
  push(decision: PolicyDecision): void;
  /** Runs `fn` with its decisions kept apart, for wrappers that reword what the wrapped command gets. */
  collect<T>(fn: () => T): { value: T; decisions: PolicyDecision[] };
  walk(node: Node): Facts;
  children(node: Node): Facts;
  /** Text the grammar took as plain words that bash would still run a substitution in. */
  hidden(text: string): Facts;
  command(node: Node, stdin: Stdin | undefined): Facts;
  /** One command as a list of words: the heart of the classification. */
  argv(words: Word[], stdin: Stdin | undefined): Facts;
}

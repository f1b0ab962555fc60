import type { Node, Parser } from 'web-tree-sitter';
import { strictest, type OutsidePath, type RunFile } from '../../decision.js';
import type { LineReader } from './context.js';
import { merge, noFacts, type Result } from './facts.js';
import type { FolderWalks } from './folder-walks.js';
import { joinLineContinuations } from './parser.js';
import type { ShellPaths } from './named-paths.js';
import { LineGlobs } from './operand-places.js';
import { short } from './programs/check.js';
import { askRule } from './rules.js';
import { ScriptWalker } from './script.js';
import type { Word } from './words.js';

const MAX_DEPTH = 6;

/** Reads one command line (and the scripts nested in it) for one `analyze` call. */
export class Reader implements LineReader {
  nodes = 0;
  /** Paths outside the roots the command names, real (symlinks followed). */
  readonly outside = new Map<string, OutsidePath>();
  /** Whether anything but reading outside the roots made the command ask or refuse. */
  otherConcerns = false;
  unknownReach = false;
  network = false;
  namesCode = false;
  readonly runs: RunFile[] = [];
  readonly writes = new Set<string>();
  readonly globs: LineGlobs;

  constructor(
    readonly parser: Parser,
    readonly paths: ShellPaths,
    /** The real folder the command starts in. */
    readonly cwd: string,
    readonly walks: FolderWalks,
  ) {
    this.globs = new LineGlobs(paths.globNamesLimit);
  }

  /** Analyzes a script; continuation lines are read both as the grammar reads them and as bash joins them. */
  script(source: string, depth: number, positional?: readonly Word[]): Result {
    if (depth > MAX_DEPTH) {
      return { decision: askRule('too-complex', 'The command nests shells inside shells too deeply to check'), facts: noFacts() };
    }
    if (source.includes('\0')) {
      return { decision: askRule('unparseable', 'The command contains a NUL byte, which bash would cut the command at'), facts: noFacts() };
    }
    const variants = /\\\r?\n/.test(source) ? [source, joinLineContinuations(source)] : [source];
    const results = variants.map((text) => this.#parsed(text, depth, positional));
    const facts = results.reduce((all, r) => merge(all, r.facts), noFacts());
    return { decision: strictest(results.map((r) => r.decision)), facts };
  }

  #parsed(source: string, depth: number, positional: readonly Word[] | undefined): Result {
    const tree = this.parser.parse(source);
    if (!tree) return { decision: askRule('unparseable', 'The shell parser gave up on the command'), facts: noFacts() };
    try {
      const script = new ScriptWalker(this, depth, positional);
      const root = tree.rootNode;
      if (root.hasError) {
        const where = firstError(root);
        script.push(
          askRule(
            'unparseable',
            `The command is not valid bash as far as the parser can tell${where ? ` (near "${short(where, 30)}")` : ''}`,
          ),
        );
      }
      script.collectFunctions(root);
      const facts = script.walk(root);
      script.finish(facts);
      if (this.globs.exhausted) {
        script.push(askRule('too-complex', 'The command\'s globs list folders too large to check where each file they match leads'));
      }
      return { decision: script.decision(), facts };
    } finally {
      tree.delete();
    }
  }
}

function firstError(node: Node): string | undefined {
  if (node.isError || node.isMissing) return node.text || node.type;
  for (const child of node.children) {
    if (child.hasError || child.isMissing) {
      const found = firstError(child);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

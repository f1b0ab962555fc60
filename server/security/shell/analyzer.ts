import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { strictest, type Decision, type PolicyDecision } from '../../decision.js';
import { loadBashParser } from './parser.js';
import { isWithin } from '../within.js';
import { normalizeAbsolute, type ShellPaths } from './named-paths.js';
import { FolderWalks } from './folder-walks.js';
import { Reader } from './reader.js';
import { realPath } from './operand-places.js';
import { uniqueRuns } from './runs/found.js';
import { askRule, denyPincerCode } from './rules.js';

/**
 * Readings of one line at most: a walk's answer can lead to another walk (git grep's index unreadable: the work tree is
 * walked), so a second round is common; more means the folders keep changing under the check.
 */
const MAX_WALK_ROUNDS = 4;

export interface ShellAnalyzerOptions {
  /** Pincer's data folder (and anything else no command may name). */
  protectedPaths: string[];
  /** Pincer's own code and bundled plugins: commands may read them, never write into them. */
  readOnlyPaths?: string[];
  /** The folders tools work in; wiping one is catastrophic. */
  roots: string[];
  /** The home folder `~` and `$HOME` stand for (default: this user's). */
  home?: string;
  /** Most entries a recursive read may visit looking for secrets before it asks (default: SECRET_SCAN_LIMIT). */
  scanLimit?: number;
  /** Most names one command's globs may read from the disk before it asks (default: GLOB_NAMES_PER_LINE). */
  globNamesLimit?: number;
}

/**
 * Judges a shell command before it runs (docs/security.md, "The policy": commands): parsed with a real bash parser into
 * simple commands, each one classified — read-only commands are allowed, anything unknown or able to write, run code or
 * reach the network asks, and a short list of catastrophes is denied outright, however it is wrapped or spelled.
 */
export class ShellAnalyzer {
  readonly #paths: ShellPaths;
  #parser: Promise<Parser> | undefined;

  constructor(options: ShellAnalyzerOptions) {
    const home = normalizeAbsolute(resolve(options.home ?? homedir()));
    this.#paths = {
      home,
      roots: withRealPaths(options.roots),
      protectedPaths: withRealPaths(options.protectedPaths),
      readOnlyPaths: withRealPaths(options.readOnlyPaths ?? []),
      ...(options.scanLimit !== undefined && { scanLimit: options.scanLimit }),
      ...(options.globNamesLimit !== undefined && { globNamesLimit: options.globNamesLimit }),
    };
  }

  /**
   * Judges a command that starts in `cwd` (a real folder; default: the first root). The verdict's subject lists the
   * paths outside the roots it names, and what it would be without them (for folder grants).
   */
  async analyze(command: string, cwd?: string): Promise<PolicyDecision> {
    let parser: Parser;
    try {
      parser = await (this.#parser ??= loadBashParser());
    } catch (error) {
      this.#parser = undefined;
      return askRule('unparseable', `The shell parser could not be loaded (${(error as Error).message}), so the command cannot be checked`);
    }
    const start = cwd ?? this.#paths.roots[0] ?? '/';
    // Read in rounds, the folder walks a round lacks done in between (folder-walks.ts: they keep the thread free).
    const walks = new FolderWalks(this.#paths);
    let reader = new Reader(parser, this.#paths, start, walks);
    let verdict = reader.script(command, 0).decision;
    for (let round = 1; !walks.complete; round++) {
      if (round > MAX_WALK_ROUNDS) {
        const unfinished = askRule('too-complex', 'The folders the command reads changed while they were checked for keys and credentials');
        verdict = strictest([verdict, unfinished]); // a refusal stays one
        break;
      }
      await walks.fetchMissing();
      reader = new Reader(parser, this.#paths, start, walks);
      verdict = reader.script(command, 0).decision;
    }
    // Security: an approved command whose reach cannot be told from its text runs outside the sandbox, so nothing
    // would keep it out of Pincer's code if it works there (starts there, or names it): such a command never runs.
    if (verdict.decision !== 'deny' && reader.unknownReach && (reader.namesCode || inCode(start, this.#paths))) {
      verdict = denyPincerCode(
        `The command works in Pincer's own code (${inCode(start, this.#paths) ? `it starts in ${start}` : 'it names a path there'}), and what it ` +
          'would write cannot be told from its text',
      );
    }
    const outside = [...reader.outside.values()];
    const otherwise: Decision = verdict.decision === 'deny' ? 'deny' : reader.otherConcerns ? 'ask' : 'allow';
    const reach = reader.unknownReach ? 'unknown' : 'known';
    const runs = uniqueRuns(reader.runs);
    const files = { ...(runs.length > 0 ? { runs } : {}), ...(reader.writes.size > 0 ? { writes: [...reader.writes] } : {}) };
    return { ...verdict, subject: { command, ...(cwd ? { path: cwd } : {}), outside, otherwise, network: reader.network, reach, ...files } };
  }
}

function inCode(folder: string, paths: ShellPaths): boolean {
  const real = realPath(folder);
  return paths.readOnlyPaths.some((dir) => isWithin(real, dir));
}

/** A folder and, when different, where its symlinks lead: a command may name either. */
function withRealPaths(folders: readonly string[]): string[] {
  const out = new Set<string>();
  for (const folder of folders) {
    const absolute = normalizeAbsolute(resolve(folder));
    out.add(absolute);
    try {
      out.add(normalizeAbsolute(realpathSync(absolute)));
    } catch {
      // Not there (yet): the name is all there is to match.
    }
  }
  return [...out];
}

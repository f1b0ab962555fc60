import { posix } from 'node:path';
import { isWithin } from '../within.js';
import { criticalFolder, matchesEveryName, normalizeAbsolute, type CriticalKind, type ShellPaths } from './named-paths.js';
import { hasGlob, type Sweep, type Word } from './words.js';

/**
 * What a command does to the files a sweep hands it (`find ~ -exec shred {} +`, `find / | xargs rm`): judged by what
 * the command does to a file — delete, overwrite, empty — not by its flags, so `rm -f` over a home folder is the
 * wipe that `rm -rf ~` is.
 */

/** The words a command destroys the files of, and how it destroys them. */
export interface Destroyed {
  verb: string;
  words: Word[];
}

/** Options of each destroying program that take a value (so the value is not taken for a file). */
const VALUE_OPTIONS: Record<string, RegExp> = {
  shred: /^(?:-n|-s|--iterations|--size|--random-source)$/,
  truncate: /^(?:-s|-r|--size|--reference)$/,
  mv: /^(?:-t|-S|--target-directory|--suffix)$/,
  cp: /^(?:-t|-S|--target-directory|--suffix)$/,
  wipe: /^(?:-Q|-S|-l|-x|-T|-X)$/,
};

/** `/dev/null` and its kin: moving a file onto one throws it away, copying one over a file empties it. */
const VOID = /^\/dev\/(?:null|zero)$/;

function isOption(word: Word): boolean {
  return word.value !== undefined && word.value.startsWith('-') && word.value !== '-';
}

/** The operands of a GNU-style command line (after `--`, everything), and the options with their values. */
function split(program: string, args: Word[]): { operands: Word[]; options: [string, string | undefined][] } {
  const operands: Word[] = [];
  const options: [string, string | undefined][] = [];
  const takesValue = VALUE_OPTIONS[program] ?? /^$/;
  let end = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (end || !isOption(word)) {
      operands.push(word);
    } else if (word.value === '--') {
      end = true;
    } else {
      const v = word.value!;
      const eq = v.indexOf('=');
      if (v.startsWith('--') && eq > 0) options.push([v.slice(0, eq), v.slice(eq + 1)]);
      else if (takesValue.test(v)) options.push([v, args[++i]?.value]);
      else if (/^-[ns]./.test(v) && (program === 'shred' || program === 'truncate')) options.push([v.slice(0, 2), v.slice(2)]);
      else options.push([v, undefined]);
    }
  }
  return { operands, options };
}

/**
 * The files this command would delete, overwrite or empty, or undefined when it destroys none: rm, unlink, srm,
 * shred, wipe (any flags), truncate to a size (not one that only grows), dd's `of=`, mv onto /dev/null, cp of
 * /dev/null over a file.
 */
export function destroyedBy(program: string, args: Word[]): Destroyed | undefined {
  switch (program) {
    case 'rm':
    case 'unlink':
    case 'srm':
      return { verb: 'deletes', words: split(program, args).operands };
    case 'shred':
    case 'wipe':
      return { verb: 'overwrites', words: split(program, args).operands };
    case 'truncate': {
      const { operands, options } = split(program, args);
      const size = options.find(([name]) => name === '-s' || name === '--size');
      const reference = options.some(([name]) => name === '-r' || name === '--reference');
      // `-s +1K` and `-s '>1K'` only ever grow a file; any other size cuts what is beyond it.
      if (!reference && (size === undefined || /^\s*[+>]/.test(size[1] ?? ''))) return undefined;
      return { verb: 'empties', words: operands };
    }
    case 'dd':
      return { verb: 'overwrites', words: args.filter((w) => (w.value ?? w.guesses[0] ?? '').startsWith('of=')) };
    case 'mv': {
      const { operands, options } = split(program, args);
      const target = options.find(([name]) => name === '-t' || name === '--target-directory')?.[1];
      const sources = target !== undefined ? operands : operands.slice(0, -1);
      const destination = target ?? operands.at(-1)?.value;
      if (destination === undefined || !VOID.test(normalizeAbsolute(destination))) return undefined;
      return { verb: 'throws away (moves onto /dev/null)', words: sources };
    }
    case 'cp': {
      const { operands } = split(program, args);
      const source = operands[0]?.value;
      if (operands.length !== 2 || source === undefined || !VOID.test(normalizeAbsolute(source))) return undefined;
      return { verb: 'empties', words: [operands[1]!] };
    }
    default:
      return undefined;
  }
}

/** The folders a sweep's tree stands for; a start that is itself a telling glob (`~/*.log`) picks files by name. */
function treeFolders(tree: Word, here: readonly string[]): { folders: string[]; picked: boolean } {
  const folders: string[] = [];
  let picked = false;
  for (const guess of tree.guesses.length > 0 ? tree.guesses : [tree.value ?? '']) {
    const text = guess === '' ? '.' : guess;
    const absolute = text.startsWith('/') ? [normalizeAbsolute(text)] : here.map((base) => normalizeAbsolute(posix.resolve(base, text)));
    for (const path of absolute) {
      const segments = path.split('/');
      const globAt = segments.findIndex((s) => hasGlob(s));
      if (globAt === -1) {
        folders.push(path);
      } else if (matchesEveryName(segments[globAt]!)) {
        folders.push(segments.slice(0, globAt).join('/') || '/');
      } else {
        picked = true;
      }
    }
  }
  return { folders, picked };
}

/** Is the tree of a sweep `/`, a system folder, a home folder or a root (or what holds one)? */
export function criticalTree(tree: Word, paths: ShellPaths, here: readonly string[]): CriticalKind | undefined {
  const { folders } = treeFolders(tree, here);
  for (const folder of folders) {
    const kind = criticalFolder(folder, paths);
    if (kind) return kind;
  }
  return undefined;
}

/** Does the tree hold Pincer's data folder (`find ~` does, when the data is in `~/.pincer`)? */
export function treeHoldsData(tree: Word, paths: ShellPaths, here: readonly string[]): boolean {
  const { folders } = treeFolders(tree, here);
  return folders.some((folder) => paths.protectedPaths.some((data) => isWithin(data, folder)));
}

/** How a sweep hands its files to a program, for a reason: `find -exec shred`, `find | xargs rm`, `find -delete`. */
export function howSwept(sweep: Sweep, program: string): string {
  return sweep.via === 'find -delete' ? sweep.via : `${sweep.via} ${program}`;
}

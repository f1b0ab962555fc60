import { literalWord, type Word } from './words.js';

/**
 * GNU-style option scanning, shared by the checks that need to know which words are operands: `--` ends the
 * options, short options cluster (`-rf`), and an option that takes a value takes the rest of its cluster or the
 * next word (`-n5`, `-n 5`, `--lines=5`, `--lines 5`).
 */

/** One option as written, and the value it took when it takes one. */
export interface ScannedOption {
  /** `-x` for a short option (one per letter of a cluster), `--name` for a long one. */
  flag: string;
  /** The word as written (`-rf`, `--file=x`). */
  word: string;
  /** The value, for an option that takes one (or a long option given one with `=`). */
  value?: Word;
}

export interface OptionGrammar {
  /** Short options that take a value. */
  short: string;
  /** Long options (without dashes) that take a value. */
  long: readonly string[];
}

export function scanOptions(args: readonly Word[], grammar: OptionGrammar): { positionals: Word[]; options: ScannedOption[] } {
  const positionals: Word[] = [];
  const options: ScannedOption[] = [];
  let end = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (end || v === undefined || !v.startsWith('-') || v === '-') {
      positionals.push(word);
      continue;
    }
    if (v === '--') {
      end = true;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq === -1 ? undefined : eq);
      const value = eq !== -1 ? literalWord(v.slice(eq + 1)) : grammar.long.includes(name) ? args[++i] : undefined;
      options.push({ flag: `--${name}`, word: v, ...(value ? { value } : {}) });
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const flag = `-${v[k]}`;
      if (!grammar.short.includes(v[k]!)) {
        options.push({ flag, word: v });
        continue;
      }
      const value = k < v.length - 1 ? literalWord(v.slice(k + 1)) : args[++i];
      options.push({ flag, word: v, ...(value ? { value } : {}) });
      break;
    }
  }
  return { positionals, options };
}

import { scanAwk, scanSed } from '../embedded.js';
import { type Word } from '../words.js';
import { type Check, type CheckResult, dynamicArgument, OK, problem, unsure } from './check.js';

/** sed and awk: programs whose script (an argument) may write files or run commands. */

const SED_LONG = [
  'quiet', 'silent', 'debug', 'expression', 'file', 'follow-symlinks', 'in-place', 'line-length', 'null-data',
  'zero-terminated', 'posix', 'regexp-extended', 'sandbox', 'separate', 'unbuffered', 'binary', 'help', 'version',
];

/** sed prints unless told to edit in place (`-i`) or the script writes (`w`) or runs (`e`) something. */
function checkSed(args: Word[]): CheckResult {
  const scripts: string[] = [];
  let scriptGiven = false;
  let sandbox = false;
  let endOfOptions = false;
  let positional = 0;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!endOfOptions && unsure(word)) return dynamicArgument('sed', word);
    const v = word.value ?? '';
    if (!endOfOptions && v === '--') {
      endOfOptions = true;
      continue;
    }
    if (!endOfOptions && v.startsWith('--')) {
      // getopt accepts any unambiguous abbreviation (`--e` is `--expression`); anything else is refused by sed.
      const given = v.slice(2).split('=')[0]!;
      const matches = SED_LONG.filter((name) => name.startsWith(given));
      const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
      if (!given || !name) return problem('dangerous-flag', `sed ${v} is an option this check does not know.`);
      if (name === 'in-place') return problem('dangerous-flag', 'sed --in-place edits files.');
      if (name === 'file') return problem('dangerous-flag', 'sed -f reads its script from a file this check cannot see.');
      if (name === 'sandbox') sandbox = true;
      if (name === 'expression') {
        scriptGiven = true;
        const script = v.includes('=') ? v.slice(v.indexOf('=') + 1) : args[++i]?.value;
        if (script === undefined) return dynamicArgument('sed', args[i] ?? word);
        scripts.push(script);
      } else if (name === 'line-length' && !v.includes('=')) {
        i++;
      }
      continue;
    }
    if (!endOfOptions && v.startsWith('-') && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (c === 'i') return problem('dangerous-flag', 'sed -i edits files in place.');
        if (c === 'f') return problem('dangerous-flag', 'sed -f reads its script from a file this check cannot see.');
        if (c === 'e' || c === 'l') {
          const attached = v.slice(k + 1);
          const value = attached !== '' ? attached : args[++i]?.value;
          if (value === undefined) return dynamicArgument('sed', args[i] ?? word);
          if (c === 'e') {
            scriptGiven = true;
            scripts.push(value);
          }
          break;
        }
      }
      continue;
    }
    if (!scriptGiven && positional === 0) {
      if (word.value === undefined) return dynamicArgument('sed', word);
      scripts.push(word.value);
      scriptGiven = true;
    }
    positional++;
  }
  const scan = scanSed(scripts.join('\n'));
  if (scan.problem && !sandbox) return problem('dangerous-flag', `${scan.problem}.`, { scripts: scan.commands });
  return sandbox ? OK : { reads: scan.reads };
}

const AWK_LONG = [
  'assign', 'field-separator', 'file', 'source', 'exec', 'include', 'load', 'sandbox', 'dump-variables', 'pretty-print',
  'profile', 'debug', 'lint', 'posix', 'traditional', 're-interval', 'non-decimal-data', 'bignum', 'characters-as-bytes',
  'copyright', 'gen-pot', 'help', 'version', 'optimize', 'no-optimize', 'use-lc-numeric', 'csv', 'characters-as-bytes',
];

/**
 * awk prints unless its program calls system(), pipes or redirects output. Options are read as getopt reads them
 * (clusters, abbreviations) so that `-bf prog.awk` or `--sou='…'` cannot slip a program past the check; a program
 * in a file (`-f`, `-E`, `-i`, `-l`) cannot be seen and asks.
 */
function checkAwk(args: Word[], program: string): CheckResult {
  let source: string | undefined;
  let sandbox = false;
  const unseen = (what: string) =>
    problem('dangerous-flag', `${program} ${what} loads a program (or writes a file) this check cannot see.`);
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (source !== undefined) continue; // input files and var=value assignments
    const v = word.value;
    if (v === undefined || word.split) return dynamicArgument(program, word);
    if (v === '--') {
      const next = args[++i];
      if (next && source === undefined) {
        if (next.value === undefined) return dynamicArgument(program, next);
        source = next.value;
      }
      continue;
    }
    if (v.startsWith('--')) {
      const given = v.slice(2).split('=')[0]!;
      const matches = AWK_LONG.filter((name) => name.startsWith(given));
      const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
      if (!given || !name) return problem('dangerous-flag', `${program} ${v} is an option this check does not know.`);
      if (['file', 'exec', 'include', 'load', 'dump-variables', 'pretty-print', 'profile', 'debug'].includes(name)) {
        return unseen(`--${name}`);
      }
      if (name === 'sandbox') sandbox = true;
      if (name === 'source') {
        source = v.includes('=') ? v.slice(v.indexOf('=') + 1) : args[++i]?.value;
        if (source === undefined) return dynamicArgument(program, args[i] ?? word);
      } else if ((name === 'assign' || name === 'field-separator') && !v.includes('=')) {
        i++;
      }
      continue;
    }
    if (v.startsWith('-') && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if ('fEilW'.includes(c)) return unseen(`-${c}`);
        if ('dopD'.includes(c)) return unseen(`-${c}`);
        if (c === 'S') sandbox = true;
        if (c === 'e') {
          const attached = v.slice(k + 1);
          source = attached !== '' ? attached : args[++i]?.value;
          if (source === undefined) return dynamicArgument(program, args[i] ?? word);
          break;
        }
        if (c === 'F' || c === 'v') {
          if (k === v.length - 1) i++;
          break;
        }
        if (!'bcCghLMnNOPrstVY'.includes(c)) return problem('dangerous-flag', `${program} -${c} is an option this check does not know.`);
      }
      continue;
    }
    source = v;
  }
  if (source === undefined) return OK;
  const scan = scanAwk(source);
  if (scan.problem && !sandbox) return problem('dangerous-flag', `${scan.problem}.`, { scripts: scan.commands });
  return OK;
}

export const STREAM_EDITOR_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['sed', checkSed],
  ['awk', checkAwk],
  ['gawk', checkAwk],
  ['mawk', checkAwk],
  ['nawk', checkAwk],
];

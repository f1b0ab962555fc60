import { type Word } from '../words.js';
import { type Check, type CheckResult, dynamicArgument, OK, onlyWords, optionsOnly, problem, short, unsure } from './check.js';
import { dangerousVariable } from './environment.js';

/** Shell builtins that read, print or set shell state: set, read, printf, test, history, env, shopt. */

function checkSet(args: Word[]): CheckResult {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (unsure(word)) return dynamicArgument('set', word);
    const v = word.value!;
    if (v === '--' || v === '-') return OK; // the rest are positional parameters
    if (/^[-+]o$/.test(v)) {
      const name = args[i + 1]?.value;
      if (name === undefined) return OK;
      if (!/^(?:errexit|nounset|pipefail|xtrace|verbose|noclobber|noglob|errtrace|functrace|posix)$/.test(name)) {
        return problem('dangerous-flag', `set -o ${short(name)} changes how the shell runs what follows.`);
      }
      i++;
      continue;
    }
    if (/^[-+][befhmnuvxBCEHPTo]+$/.test(v)) {
      if (v.includes('o')) {
        const name = args[i + 1]?.value;
        if (name !== undefined && !/^(?:errexit|nounset|pipefail|xtrace|verbose|noclobber|noglob)$/.test(name)) {
          return problem('dangerous-flag', `set -o ${short(name)} changes how the shell runs what follows.`);
        }
        i++;
      }
      continue;
    }
    if (v.startsWith('-') || v.startsWith('+')) return problem('dangerous-flag', `set ${v} changes how the shell reads what follows.`);
    return OK; // positional parameters
  }
  return OK;
}

function checkRead(args: Word[]): CheckResult {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (unsure(word)) return dynamicArgument('read', word);
    const v = word.value!;
    if (/^-[ers]*[adinNptu]$/.test(v)) {
      if (v.endsWith('a')) {
        const name = args[i + 1]?.value ?? '';
        if (!/^[A-Za-z_]\w*$/.test(name) || dangerousVariable(name)) {
          return problem('dangerous-flag', `read -a ${short(name)} sets a variable that changes what later commands run.`);
        }
      }
      i++;
      continue;
    }
    if (/^-[ers]+$/.test(v)) continue;
    if (!/^[A-Za-z_]\w*$/.test(v) || dangerousVariable(v)) {
      return problem('dangerous-flag', `read ${short(v)} sets a variable that changes what later commands run.`);
    }
  }
  return OK;
}

/** printf -v assigns a variable; an array subscript in its name runs code (`printf -v 'a[$(id)]' x`). */
function checkPrintf(args: Word[]): CheckResult {
  const first = args[0];
  if (!first) return OK;
  if (first.value === undefined) return dynamicArgument('printf', first);
  if (/^-[^-]*v/.test(first.value)) return problem('dangerous-flag', 'printf -v assigns a variable (an array subscript there runs code).');
  return OK;
}

/** test -v evaluates a variable name; an array subscript there runs code. */
function checkTest(args: Word[], program: string): CheckResult {
  if (args.some((w) => w.value === '-v' || w.value === '-R')) {
    return problem('dangerous-flag', `${program} -v evaluates a variable name (an array subscript there runs code).`);
  }
  return OK;
}

export const SHELL_BUILTIN_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['history', optionsOnly(/^\d+$/, 'changes or writes the history')],
  ['set', checkSet],
  ['read', checkRead],
  ['printf', checkPrintf],
  ['test', checkTest],
  ['[', checkTest],
  ['env', onlyWords(/^(?:-0|--null|-i|--ignore-environment|-)$/, 'runs a command')],
  ['shopt', onlyWords(/^-[pq]$/, 'changes how the shell expands words')],
];

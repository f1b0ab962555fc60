import { scanOptions, type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { Found, type Handler, optionValues, type Values } from './found.js';

/** Shells and interpreters given a file: the script itself, and what node or a shell preloads. */

/** The first operand is a script file (`bash x.sh`, `node x.js`, `ruby x.rb`); options with values are skipped. */
export function scriptOperand(found: Found, base: string, args: readonly Word[], grammar: OptionGrammar, code: readonly string[] = []): void {
  const values = args.map((w) => w.value);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) return;
    if (v === '--') {
      const next = values[i + 1];
      if (next !== undefined) found.file(found.at(base, next));
      return;
    }
    if (v === '-') return;
    if (code.includes(v) || code.some((flag) => v.startsWith(`${flag}=`))) return;
    if (v.startsWith('--')) {
      const name = v.slice(2).split('=')[0]!;
      if (!v.includes('=') && grammar.long.includes(name)) i++;
      continue;
    }
    if (v.startsWith('-')) {
      const letters = v.slice(1);
      if ([...letters].some((l) => code.includes(`-${l}`))) return;
      const valued = [...letters].findIndex((l) => grammar.short.includes(l));
      if (valued === letters.length - 1) i++;
      continue;
    }
    found.file(found.at(base, v));
    return;
  }
}

const SHELL_GRAMMAR: OptionGrammar = { short: 'oO', long: ['rcfile', 'init-file'] };

function shellScript(found: Found, base: string, args: readonly Word[]): void {
  const values = args.map((w) => w.value);
  // `bash -c '…'` runs its text (read as a nested script); `bash -s` reads its input.
  if (values.some((v) => v !== undefined && /^-[A-Za-z]*[cs][A-Za-z]*$/.test(v))) return;
  scriptOperand(found, base, args, SHELL_GRAMMAR);
  for (const rc of optionValues(args, { short: '', long: ['rcfile', 'init-file'] }, ['--rcfile', '--init-file'])) found.file(found.at(base, rc));
}

function sourced(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const file = values[0];
  if (file !== undefined) found.file(found.at(base, file));
}

const NODE: OptionGrammar = {
  short: 'rC',
  long: ['require', 'import', 'loader', 'experimental-loader', 'env-file', 'env-file-if-exists', 'conditions', 'title', 'input-type', 'stack-size', 'max-old-space-size', 'inspect-port', 'test-reporter', 'test-reporter-destination', 'test-name-pattern', 'watch-path'],
};

function nodeScript(found: Found, base: string, args: readonly Word[]): void {
  // Modules preloaded with -r / --import / --loader, and --env-file (its NODE_OPTIONS can preload more).
  for (const option of scanOptions(args, NODE).options) {
    const value = option.value?.value;
    if (value === undefined) continue;
    const preload = ['-r', '--require', '--import', '--loader', '--experimental-loader'].includes(option.flag);
    if ((preload && /^\.{0,2}\//.test(value)) || option.flag === '--env-file' || option.flag === '--env-file-if-exists') {
      found.file(found.at(base, value));
    }
  }
  scriptOperand(found, base, args, NODE, ['-e', '--eval', '-p', '--print']);
}

const INTERPRETERS: Readonly<Record<string, { grammar: OptionGrammar; code: string[] }>> = {
  ruby: { grammar: { short: 'IrCEFKTWx', long: [] }, code: ['-e'] },
  perl: { grammar: { short: 'IMmlFDxC', long: [] }, code: ['-e', '-E'] },
  php: { grammar: { short: 'cdzt', long: [] }, code: ['-r', '-a'] },
  lua: { grammar: { short: 'l', long: [] }, code: ['-e'] },
  Rscript: { grammar: { short: '', long: [] }, code: ['-e'] },
  tsx: { grammar: NODE, code: ['-e', '--eval', '-p', '--print'] },
  'ts-node': { grammar: NODE, code: ['-e', '--eval', '-p', '--print'] },
  julia: { grammar: { short: 'JCtLp', long: ['project', 'threads', 'sysimage', 'load'] }, code: ['-e', '-E', '--eval', '--print'] },
};

function interpreted(found: Found, base: string, args: readonly Word[]): void {
  const spec = INTERPRETERS[found.by] ?? INTERPRETERS[found.by.replace(/[0-9.]+$/, '')];
  if (!spec) return;
  if (found.by === 'php') {
    const file = optionValues(args, { short: 'f', long: [] }, ['-f'])[0];
    if (file !== undefined) found.file(found.at(base, file));
  }
  scriptOperand(found, base, args, spec.grammar, spec.code);
}

const SHELL_NAMES = ['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'rbash', 'yash', 'posh'];

export const SCRIPT_RUNS: ReadonlyArray<readonly [string, Handler]> = [
  ['source', sourced],
  ['.', sourced],
  ['node', nodeScript],
  ['nodejs', nodeScript],
  ...SHELL_NAMES.map((name) => [name, shellScript] as [string, Handler]),
  ...['ruby', 'perl', 'php', 'lua', 'Rscript', 'tsx', 'ts-node', 'julia'].map((name) => [name, interpreted] as [string, Handler]),
];

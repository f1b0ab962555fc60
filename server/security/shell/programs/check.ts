import { globCanStartWithDash, type Sweep, type Word } from '../words.js';

/**
 * How a read-only program's arguments are checked: the answer's shape, and the scanners the families share
 * (GNU-style options, verbs, plain words).
 */

export type ProblemRule = 'dangerous-flag' | 'not-read-only' | 'dynamic-argument';

export interface Problem {
  rule: ProblemRule;
  /** For a person: what the command would do that is not read-only. */
  why: string;
}

/** A read-only check's answer: a problem (or none), plus commands the arguments would run, to check as well. */
export interface CheckResult {
  problem?: Problem;
  /** Shell scripts embedded in arguments (`git -c core.pager=…`, sed's `e`): checked for catastrophes. */
  scripts?: string[];
  /** Commands the program runs (`find -exec …`), as argument lists, classified like any other command. */
  commands?: Word[][];
  /** Files the program reads that are named inside a script (sed's `r file`): checked for secrets. */
  reads?: string[];
  /** The trees whose file names it prints (find), for a command further down a pipe that acts on each name. */
  lists?: Sweep[];
}

export type Check = (args: Word[], program: string) => CheckResult;

export const OK: CheckResult = {};

export function problem(rule: ProblemRule, why: string, extra: Omit<CheckResult, 'problem'> = {}): CheckResult {
  return { problem: { rule, why }, ...extra };
}

export function dynamicArgument(program: string, word: Word): CheckResult {
  return problem(
    'dynamic-argument',
    `${program} gets an argument (${short(word.text)}) whose value is only known when it runs; ` +
      'it could be an option that writes files or runs commands.',
  );
}

export function short(text: string, max = 60): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** A word whose value (or number of words) cannot be known before it runs, or a glob that may expand to "-…". */
export function unsure(word: Word): boolean {
  return word.value === undefined || word.split || globCanStartWithDash(word);
}

export interface FlagSpec {
  /** Short options that take a value (attached or as the next word). */
  valueShort?: string;
  /** Long options (without dashes) that take a value as the next word when written without "=". */
  valueLong?: readonly string[];
  /** Short options that write files or run programs. */
  badShort?: string;
  /** Long options that write files or run programs; abbreviations count (`--out` is `--output`). */
  badLong?: readonly string[];
  /** What the bad options do, for the reason. */
  badWhy?: string;
  /** Positional arguments allowed (uniq IN OUT writes OUT). */
  maxPositionals?: number;
  positionalWhy?: string;
  /**
   * A glob may expand to a file named like an option; when the only such option is mild (`file -C` writes a
   * magic.mgc), `file *` is still worth allowing.
   */
  globsSafe?: boolean;
}

/** Scans GNU-style options; `--` ends them. */
export function checkFlags(args: Word[], program: string, spec: FlagSpec): CheckResult & { positionals: Word[] } {
  const positionals: Word[] = [];
  let endOfOptions = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (endOfOptions) {
      if (spec.maxPositionals !== undefined && (word.split || word.glob)) return { ...dynamicArgument(program, word), positionals };
      positionals.push(word);
      continue;
    }
    if (word.value === undefined || word.split || (globCanStartWithDash(word) && !spec.globsSafe)) {
      return { ...dynamicArgument(program, word), positionals };
    }
    const value = word.value;
    if (word.glob && spec.globsSafe) {
      positionals.push(word);
      continue;
    }
    if (value === '--') {
      endOfOptions = true;
      continue;
    }
    if (value.startsWith('--')) {
      const eq = value.indexOf('=');
      const name = value.slice(2, eq === -1 ? undefined : eq);
      if (name && spec.badLong?.some((bad) => bad.startsWith(name))) {
        return {
          ...problem(
            'dangerous-flag',
            `${program} ${value.slice(0, eq === -1 ? undefined : eq)} ${spec.badWhy ?? 'writes files or runs programs'}.`,
          ),
          positionals,
        };
      }
      if (eq === -1 && spec.valueLong?.includes(name)) i++;
      continue;
    }
    if (value.startsWith('-') && value.length > 1) {
      for (let k = 1; k < value.length; k++) {
        const c = value[k]!;
        if (spec.badShort?.includes(c)) {
          return { ...problem('dangerous-flag', `${program} -${c} ${spec.badWhy ?? 'writes files or runs programs'}.`), positionals };
        }
        if (spec.valueShort?.includes(c)) {
          if (k === value.length - 1) i++;
          break;
        }
      }
      continue;
    }
    positionals.push(word);
  }
  if (spec.maxPositionals !== undefined && positionals.length > spec.maxPositionals) {
    return { ...problem('not-read-only', `${program} ${spec.positionalWhy ?? 'with these arguments changes something'}.`), positionals };
  }
  return { positionals };
}

export const flags =
  (spec: FlagSpec): Check =>
  (args, program) => {
    const { positionals: _, ...result } = checkFlags(args, program, spec);
    return result;
  };

export function onlyWords(allowed: RegExp, what: string): Check {
  return (args, program) => {
    for (const word of args) {
      if (unsure(word)) return dynamicArgument(program, word);
      if (!allowed.test(word.value!)) return problem('not-read-only', `${program} ${short(word.text)} ${what}.`);
    }
    return OK;
  };
}

/** A program whose first word is a verb: only the listed verbs (and then only plain words and options) read. */
export function verbs(allowed: RegExp, what: string, rest: RegExp = /^(?:--?[\w-]+|[\w@.,/+:][\w@.,/+:-]*)$/): Check {
  return (args, program) => {
    const words = args.filter((w) => !(w.value ?? '').startsWith('-'));
    for (const word of args) if (unsure(word)) return dynamicArgument(program, word);
    const verb = words[0]?.value;
    if (verb !== undefined && !allowed.test(verb)) return problem('not-read-only', `${program} ${short(verb)} ${what}.`);
    const odd = args.find((w) => !rest.test(w.value!));
    if (odd) return problem('not-read-only', `${program} ${short(odd.text)} is not a plain query.`);
    return OK;
  };
}

/** Options only: `route -n`, `arp -a`, `stty -a` print; an operand changes something. */
export function optionsOnly(allowed: RegExp, what: string): Check {
  return (args, program) => {
    for (const word of args) {
      if (unsure(word)) return dynamicArgument(program, word);
      if (!allowed.test(word.value!)) return problem('not-read-only', `${program} ${short(word.text)} ${what}.`);
    }
    return OK;
  };
}

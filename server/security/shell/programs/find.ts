import { globToRegExp, literalWord, type Sweep, type Word } from '../words.js';
import { type Check, type CheckResult, dynamicArgument, problem } from './check.js';

/** find: what its expression would do to the files it visits (run, delete, write, print). */

const FIND_VALUE = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-type',
  '-xtype', '-user', '-group', '-uid', '-gid', '-perm', '-size', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin',
  '-newer', '-anewer', '-cnewer', '-used', '-links', '-inum', '-samefile', '-maxdepth', '-mindepth', '-fstype',
  '-regextype', '-context', '-printf', '-files0-from', '-fprint', '-fprint0', '-fls',
]);
/** Tests that pick files by what they are called (a telling pattern) or which file they are. */
const FIND_NAME_TESTS = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITE = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const FIND_PRINT = new Set(['-print', '-print0', '-printf', '-ls', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** A find argument whose words cannot be known — or a glob that could expand to one of find's dangerous tests. */
function unsureFind(word: Word): boolean {
  if (word.value === undefined || word.split) return true;
  if (!word.glob) return false;
  return couldBeDangerousTest(word);
}

function couldBeDangerousTest(word: Word): boolean {
  const re = globToRegExp(word.guesses[0] ?? word.text);
  return [...FIND_EXEC, ...FIND_WRITE].some((test) => re.test(test));
}

/** Does a name pattern pick some files out, or match (nearly) every name (`*`, `*.*`, `.*`, `.*` as a regex)? */
function tellingPattern(test: string, pattern: string): boolean {
  if (/regex$/.test(test)) return /[A-Za-z0-9_-]/.test(pattern.replace(/\\.|\[[^\]]*\]|[.*+?^$()|{}]/g, ''));
  return /[^.*?/]/.test(pattern.replace(/\[[^\]]*\]/g, ''));
}

interface FindAction {
  kind: 'exec' | 'delete' | 'print';
  flag: string;
  words: Word[];
  /** Whether it runs for a file no name test picks. */
  reached: boolean;
}

/** Whether a part of the expression can come out true (`t`) or false (`f`) for the file in question. */
type Outcomes = { t: boolean; f: boolean };

/**
 * What find's expression does to a file no name test picks (the worst case: most of a tree): which actions reach
 * it. Each primary answers the outcomes it can have for such a file — a name test false, a test on size, time or
 * type either way — and `-a`, `-o`, `!` and `,` combine them as find does, short-circuit included.
 */
class FindExpression {
  readonly actions: FindAction[] = [];
  /** `-quit` runs for such a file: find stops there. */
  quits = false;
  /** `-maxdepth 0`: find looks at its start folders only. */
  onlyStarts = false;
  /** Whether the whole expression can be true for such a file (what the implicit `-print` needs). */
  canBeTrue = false;
  #i = 0;

  constructor(readonly tokens: Word[]) {}

  /** Evaluates the whole expression; false when find would refuse it (unbalanced parentheses and the like). */
  run(): boolean {
    if (this.tokens.length === 0) {
      this.canBeTrue = true;
      return true;
    }
    this.canBeTrue = this.#list(true).t;
    return this.#i >= this.tokens.length;
  }

  #peek(): string | undefined {
    return this.tokens[this.#i]?.value;
  }

  #list(reached: boolean): Outcomes {
    let out = this.#or(reached);
    while (this.#peek() === ',') {
      this.#i++;
      out = this.#or(reached);
    }
    return out;
  }

  #or(reached: boolean): Outcomes {
    let out = this.#and(reached);
    while (this.#peek() === '-o' || this.#peek() === '-or') {
      this.#i++;
      const right = this.#and(reached && out.f);
      out = { t: out.t || right.t, f: right.f };
    }
    return out;
  }

  #and(reached: boolean): Outcomes {
    let out = this.#unary(reached);
    for (;;) {
      const next = this.#peek();
      if (next === undefined || next === ')' || next === ',' || next === '-o' || next === '-or') return out;
      if (next === '-a' || next === '-and') this.#i++;
      const right = this.#unary(reached && out.t);
      out = { t: right.t, f: out.f || right.f };
    }
  }

  #unary(reached: boolean): Outcomes {
    const v = this.#peek();
    if (v === '!' || v === '-not') {
      this.#i++;
      const inner = this.#unary(reached);
      return { t: inner.f, f: inner.t };
    }
    if (v === '(') {
      this.#i++;
      const inner = this.#list(reached);
      if (this.#peek() === ')') this.#i++;
      return inner;
    }
    return this.#primary(reached);
  }

  #primary(reached: boolean): Outcomes {
    const either = { t: true, f: true };
    const word = this.tokens[this.#i++];
    const v = word?.value;
    if (v === undefined) return either;
    if (FIND_EXEC.has(v)) {
      const words: Word[] = [];
      while (this.#i < this.tokens.length && this.#peek() !== ';' && this.#peek() !== '+') words.push(this.tokens[this.#i++]!);
      this.#i++;
      this.actions.push({ kind: 'exec', flag: v, words, reached });
      return either;
    }
    if (v === '-delete') {
      this.actions.push({ kind: 'delete', flag: v, words: [], reached });
      return either;
    }
    if (FIND_NAME_TESTS.has(v)) {
      const pattern = this.tokens[this.#i++];
      // A pattern known only when it runs is taken to pick files out: asked about, not refused.
      const telling = pattern?.value === undefined || tellingPattern(v, pattern.value);
      return telling ? { t: false, f: true } : { t: true, f: false };
    }
    if (v === '-fprintf') {
      this.#i += 2;
      this.actions.push({ kind: 'print', flag: v, words: [], reached });
      return { t: true, f: false };
    }
    if (FIND_VALUE.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) {
      const value = this.tokens[this.#i++]?.value;
      if (v === '-maxdepth' && value !== undefined && Number(value) === 0) this.onlyStarts = true;
      if (FIND_PRINT.has(v)) this.actions.push({ kind: 'print', flag: v, words: [], reached });
      if (v === '-inum' || v === '-samefile') return { t: false, f: true };
      return /^-(?:maxdepth|mindepth|regextype|printf|fprint0?|fls)$/.test(v) ? { t: true, f: false } : either;
    }
    if (FIND_PRINT.has(v)) {
      this.actions.push({ kind: 'print', flag: v, words: [], reached });
      return { t: true, f: false };
    }
    if (v === '-quit') {
      if (reached) this.quits = true;
      return { t: false, f: false };
    }
    if (v === '-empty' || v === '-false') return { t: false, f: true };
    if (/^-(?:true|prune|depth|d|xdev|mount|follow|noleaf|ignore_readdir_race|noignore_readdir_race|daystart|warn|nowarn)$/.test(v)) {
      return { t: true, f: false };
    }
    return either;
  }
}

/**
 * Security: find runs commands (`-exec`, `-execdir`, `-ok`, `-okdir`), deletes (`-delete`) and writes files
 * (`-fprint*`, `-fls`). The commands it would run are returned with `{}` as a sweep of the start folder, so that
 * `find ~ -type f -exec rm -f {} +` is judged as the wipe of the home folder it is, whatever rm's flags; when a
 * name test picks the files (`-name '*.pyc'`), `{}` is a file somewhere in the tree, a delete to ask about.
 */
function checkFind(args: Word[]): CheckResult {
  let i = 0;
  while (i < args.length && /^-[HLP]$|^-O\d$/.test(args[i]!.value ?? '')) i++;
  if (args[i]?.value === '-D') i += 2;
  let unknown: Word | undefined;
  // An unknown word is taken as what it could be at its emptiest (`find ~ $FILTERS -delete` is `find ~ -delete`
  // when the variable is empty): asked about in any case, refused when even that is a catastrophe.
  const known = (word: Word): Word[] => {
    if (!unsureFind(word)) return [word];
    unknown ??= word;
    if (word.glob && word.value !== undefined && couldBeDangerousTest(word)) return [literalWord('-delete')];
    const guess = word.guesses[0] ?? '';
    const parts = word.split ? guess.split(/\s+/).filter(Boolean) : [guess];
    return parts.map((part) => literalWord(part));
  };
  const starts: Word[] = [];
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!unsureFind(word) && /^[-(!),]/.test(word.value!) && word.value !== '-') break;
    starts.push(...known(word));
  }
  const tokens: Word[] = [];
  for (; i < args.length; i++) {
    tokens.push(...known(args[i]!));
    if (!FIND_EXEC.has(args[i]!.value ?? '')) continue;
    // The command it runs is kept as written: it is judged as a command of its own.
    for (i++; i < args.length && args[i]!.value !== ';' && args[i]!.value !== '+'; i++) {
      if (unsureFind(args[i]!)) unknown ??= args[i]!;
      tokens.push(args[i]!);
    }
    if (i < args.length) tokens.push(args[i]!);
  }
  const expression = new FindExpression(tokens);
  const parsed = expression.run();
  const dangerous = expression.actions.find((a) => a.kind !== 'print' || /^-f/.test(a.flag));
  const found: CheckResult | undefined = unknown
    ? dynamicArgument('find', unknown)
    : dangerous === undefined
      ? undefined
      : problem(
          'dangerous-flag',
          dangerous.kind === 'exec'
            ? `find ${dangerous.flag} runs a command on every file it finds.`
            : dangerous.kind === 'delete'
              ? 'find -delete deletes every file it finds.'
              : `find ${dangerous.flag} writes to a file.`,
        );
  const trees = starts.length > 0 ? starts : [literalWord('.')];
  // What cannot be parsed is taken at its worst: every action reaches every file. An action that reaches a file no
  // name test picks reaches the start folder itself too (the first file find visits), and, unless find stops at
  // the first file or goes no deeper than the starts, every file under it.
  const withTree = (reached: boolean) => !parsed || reached;
  const broad = (reached: boolean) => withTree(reached) && !expression.quits && !expression.onlyStarts;
  const prints = expression.actions.filter((a) => a.kind === 'print' && !/^-f/.test(a.flag));
  const implicitPrint = !expression.actions.some((a) => a.kind === 'exec' || a.kind === 'print');
  const printed = implicitPrint ? expression.canBeTrue : prints.some((a) => a.reached);
  const lists: Sweep[] =
    prints.length > 0 || implicitPrint ? trees.map((tree) => ({ tree, broad: broad(printed), withTree: withTree(printed), via: 'find' })) : [];
  const commands: Word[][] = [];
  for (const action of expression.actions) {
    if (action.kind === 'print') continue;
    for (const tree of trees) {
      const sweep: Sweep = { tree, broad: broad(action.reached), withTree: withTree(action.reached), via: `find ${action.flag}` };
      // `{}` stands for each file found: the start folder itself when nothing picks files out.
      const file = (text: string): Word => ({ ...literalWord(text.replaceAll('{}', sweep.withTree ? tree.value! : `${tree.value}/match`)), sweep });
      commands.push(action.kind === 'delete' ? [literalWord('rm'), file('{}')] : action.words.map((w) => (w.value?.includes('{}') ? file(w.value) : w)));
    }
  }
  if (!found) return { lists };
  return { ...found, commands, lists };
}

export const FIND_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['find', checkFind],
];

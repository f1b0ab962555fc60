/**
 * Running a command through a wrapper (sudo, env, timeout, xargs, watch…): the wrapper's own options are read by its
 * entry in the WRAPPERS table (wrappers.ts) to find the command it runs, which is then classified like any other.
 */
import type { PolicyDecision } from '../../decision.js';
import type { Script } from './context.js';
import { merge, noFacts, type Facts, type Stdin } from './facts.js';
import { embedded, nested } from './nested.js';
import { operand } from './reach.js';
import { short } from './programs/check.js';
import { riskyAssignment } from './programs/environment.js';
import { askRule, KEEPS_OWN_RULE, readOnly } from './rules.js';
import { literalWord, type Sweep, type Word } from './words.js';
import type { WrapperSpec } from './wrappers.js';

/** What a wrapper's own options say, read up to the command it runs. */
interface WrapperOptions {
  /** Where the command it runs starts (after `--` and the spec's leading operands). */
  end: number;
  /** Shell text given to it to run (`su -c`, `env -S`, `flock -c`). */
  scripts: string[];
  /** An option that only looks the command up (`command -v`). */
  lookup: boolean;
  /** An option that acts on a running process or the system instead of starting a command (`ionice -p`, `sudo -l`). */
  noCommand: boolean;
  /** An option that writes a file, as written. */
  bad?: string;
  /** A word only known at run time, where the command (or an option's value) could be. */
  dynamic?: Word;
}

/** sudo, env, timeout, xargs…: the command they run is classified; some are harmless themselves, some never. */
export function wrapper(script: Script, program: string, spec: WrapperSpec, args: Word[], stdin: Stdin | undefined): Facts {
  const facts = noFacts();
  const options = readWrapperOptions(script, program, spec, args);
  const inner = options.dynamic ? [] : args.slice(options.end);
  for (const text of options.scripts) {
    const result = nested(script, text);
    script.push(result.decision);
    merge(facts, result.facts);
  }
  if (spec.generic || options.dynamic) scanForCatastrophes(script, args, program === 'parallel' ? stdin?.names : undefined);
  if (judgedAlone(script, program, spec, args, options, inner, facts)) return facts;
  followInner(script, program, spec, args, options, inner, stdin, facts);
  return facts;
}

/** Reads the wrapper's options (asking about risky environment assignments on the way) up to its command. */
function readWrapperOptions(script: Script, program: string, spec: WrapperSpec, args: Word[]): WrapperOptions {
  const o: WrapperOptions = { end: 0, scripts: [], lookup: false, noCommand: false };
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (v === undefined || word.split) {
      o.dynamic = word;
      break;
    }
    if (v === '--') {
      i++;
      break;
    }
    if (spec.assignments && /^[A-Za-z_]\w*=/.test(v)) {
      const name = v.slice(0, v.indexOf('='));
      if (riskyAssignment(name, v.slice(v.indexOf('=') + 1), true)) {
        script.push(
          askRule(
            'env-assignment',
            `${program} puts ${name} in the environment of the command; ` +
              'only formatting settings (LANG, TZ, NO_COLOR…) are allowed without approval',
          ),
        );
      }
      continue;
    }
    if (v === '-' && program === 'env') continue;
    if (!v.startsWith('-') || v.length === 1) break;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const long = v.slice(2, eq === -1 ? undefined : eq);
      const attached = eq === -1 ? undefined : v.slice(eq + 1);
      if (spec.scriptLong?.includes(long)) {
        const text = attached ?? args[++i]?.value;
        if (text === undefined) o.dynamic = args[i] ?? word;
        else o.scripts.push(text);
      } else if (spec.lookupLong?.includes(long)) o.lookup = true;
      else if (spec.badLong?.includes(long)) o.bad = v;
      else if (spec.valueLong?.includes(long) && attached === undefined) i++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (spec.scriptShort?.includes(c)) {
        const text = v.slice(k + 1) || args[++i]?.value;
        if (text === undefined) o.dynamic = args[i] ?? word;
        else o.scripts.push(text);
        break;
      }
      if (spec.lookupShort?.includes(c)) o.lookup = true;
      if (spec.noCommandShort?.includes(c)) o.noCommand = true;
      if (spec.badShort?.includes(c)) o.bad = `-${c}`;
      if (spec.valueShort?.includes(c)) {
        if (k === v.length - 1) i++;
        break;
      }
    }
  }
  o.end = i + (spec.lead ?? 0);
  return o;
}

/**
 * What the wrapper itself asks for (running as another user, a bad option); true when there is nothing further to
 * follow: a command only known at run time, a lookup, no command at all, or a wrapper this check does not follow.
 */
function judgedAlone(script: Script, program: string, spec: WrapperSpec, args: Word[], o: WrapperOptions, inner: Word[], facts: Facts): boolean {
  if (o.dynamic) {
    script.push(askRule('dynamic-argument', `${program} gets ${short(o.dynamic.text, 40)}, only known at run time, where the command to run could be`));
    return true;
  }
  const privileged = spec.kind === 'privilege';
  if (privileged) {
    script.push(askRule('privilege', `${program} runs ${inner.length ? short(inner.map((w) => w.text).join(' '), 50) : 'a shell'} as another user`));
  }
  if (o.bad) script.push(askRule('dangerous-flag', `${program} ${o.bad} ${spec.badWhy ?? 'writes a file'}`));
  if (o.lookup) {
    script.push(readOnly([program]));
    return true;
  }
  if (o.noCommand) {
    script.push(askRule('wrapper', `${program} with these options changes a running process or the system`));
    return true;
  }
  if (spec.generic) {
    script.push(askRule('wrapper', `${program} runs another command in a way this check does not follow (${short(args.map((w) => w.text).join(' '), 50)})`));
    return true;
  }
  if (inner.length > 0) return false;
  if (o.scripts.length === 0 && !privileged) {
    if (program === 'env') facts.dumpsEnv = true;
    if (spec.alone === 'ask') {
      script.push(askRule('wrapper', `${program} without a command waits for input or does something this check does not follow`));
    } else {
      script.push(readOnly([program]));
    }
  }
  return true;
}

/**
 * Classifies the command the wrapper runs (each command xargs builds); a transparent wrapper passes its verdicts on
 * (an ask reworded as the wrapper's), any other asks for itself as well.
 */
function followInner(
  script: Script,
  program: string,
  spec: WrapperSpec,
  args: Word[],
  o: WrapperOptions,
  inner: Word[],
  stdin: Stdin | undefined,
  facts: Facts,
): void {
  if (program === 'xargs') {
    facts.consumesNames = true;
    facts.namesOnInput = true;
    xargsInputFile(script, args.slice(0, o.end));
  }
  const commands = program === 'xargs' ? xargsCommands(args.slice(0, o.end), inner, stdin) : [inner];
  const { decisions } = script.collect(() => {
    for (const innerArgs of commands) {
      merge(facts, spec.joinsScript && !o.scripts.length ? joined(script, innerArgs) : script.argv(innerArgs, program === 'xargs' ? undefined : stdin));
    }
  });
  if (spec.transparent && !o.bad) {
    for (const d of decisions) {
      script.push(d.decision === 'ask' && !KEEPS_OWN_RULE.includes(d.rule) && d.rule !== 'shell:wrapper' ? rewordForWrapper(program, d) : d);
    }
    return;
  }
  if (spec.kind !== 'privilege') {
    script.push(askRule('wrapper', `${program} ${spec.why ?? 'runs another command'}: ${short(inner.map((w) => w.text).join(' '), 50)}`));
  }
  for (const d of decisions) script.push(d);
}

/** A transparent wrapper's inner ask, said as the wrapper's: the rule names what the wrapped command does. */
function rewordForWrapper(program: string, decision: PolicyDecision): PolicyDecision {
  const inner = decision.reason.replace(/\s*(?:Approve it|Approve only)[^]*$/, '');
  return askRule('wrapper', `${program} runs a command that is not read-only: ${inner} (${decision.rule})`);
}

/** `watch ls -l`: the words are joined and handed to `sh -c`. */
function joined(script: Script, words: Word[]): Facts {
  if (words.some((w) => w.value === undefined)) {
    script.push(askRule('dynamic-argument', 'The command to repeat is only known at run time'));
    return noFacts();
  }
  const result = nested(script, words.map((w) => w.value!).join(' '));
  script.push(result.decision);
  return result.facts;
}

/**
 * For wrappers whose options this check does not follow: every tail of the words is tried as a command. `names` are
 * the trees whose file names GNU parallel reads (from `find`): each tail gets them where `{}` is, or at its end.
 */
function scanForCatastrophes(script: Script, args: Word[], names?: Sweep[]): void {
  // `parallel CMD ::: a b` takes its arguments from its own command line, not from its input.
  const fed = names && !args.some((w) => /^:::+\+?$/.test(w.value ?? '')) ? names : [];
  for (let k = 0; k < Math.min(args.length, 12); k++) {
    const word = args[k]!;
    if (word.value !== undefined && word.value.includes(' ')) embedded(script, word.value);
    if (word.value === undefined || word.value.startsWith('-')) continue;
    const tail = args.slice(k);
    // parallel appends the name unless the command has a replacement string (`{}`, `{.}`, `{/}`…) of its own.
    const appends = !tail.some((w) => /\{[^{}]*\}/.test(w.value ?? ''));
    const tails = [tail, ...fed.map((sweep) => withNames(tail, '{}', { ...sweep, via: `${sweep.via} | parallel` }, appends))];
    for (const command of tails) {
      const { decisions } = script.collect(() => script.argv(command, undefined));
      for (const d of decisions) if (d.decision === 'deny') script.push(d);
    }
  }
}

/** The file a sweep hands on: its tree when the tree's own name is among them, else a file somewhere in it. */
function sweepFile(sweep: Sweep): string {
  return sweep.withTree ? (sweep.tree.value ?? sweep.tree.guesses[0] ?? '') : `${sweep.tree.value ?? ''}/match`;
}

/** `words` with the replace string standing for each file of the sweep, or (`append`) with the file added at the end. */
function withNames(words: Word[], replace: string, sweep: Sweep, append: boolean): Word[] {
  const file = sweepFile(sweep);
  const named = (text: string): Word => ({ ...literalWord(text), sweep });
  const replaced = words.map((w) => (w.value?.includes(replace) ? named(w.value.replaceAll(replace, file)) : w));
  return append ? [...replaced, { ...named(file), value: undefined, text: `(the names ${sweep.via} lists)`, split: true, dynamic: true }] : replaced;
}

/**
 * The commands xargs runs, with the input lines as their last words (or in place of the -I replace string). When
 * the input is known (`echo / | xargs rm -rf`), those are the words, so the command is judged as what it is; when
 * it is the names `find` lists, they are each file of that sweep (`find ~ | xargs rm` is the wipe it is).
 */
function xargsCommands(options: Word[], inner: Word[], stdin: Stdin | undefined): Word[][] {
  const input = stdin?.text?.trim();
  const values = options.map((w) => w.value ?? '');
  let replace: string | undefined;
  values.forEach((v, i) => {
    if (v === '-I') replace = values[i + 1];
    else if (/^-I./.test(v)) replace = v.slice(2);
    else if (v === '-i' || v === '--replace') replace = '{}';
    else if (/^(?:-i|--replace=)./.test(v)) replace = v.replace(/^(?:-i|--replace=)/, '');
  });
  const fromFile = values.some((v) => /^-a|^--arg-file/.test(v));
  if (stdin?.names?.length && !fromFile) {
    return stdin.names.map((sweep) => withNames(inner, replace ?? '{}', { ...sweep, via: `${sweep.via} | xargs` }, replace === undefined));
  }
  return [xargsCommand(inner, input, replace)];
}

/** The command with the input lines (when the text tells them) in place of the replace string, or at its end. */
function xargsCommand(inner: Word[], input: string | undefined, replace: string | undefined): Word[] {
  if (input !== undefined && replace !== undefined) {
    const lines = input.split('\n');
    return inner.map((w) =>
      w.value?.includes(replace!)
        ? { ...literalWord(w.value.replaceAll(replace!, lines[0] ?? '')), guesses: lines.map((l) => w.value!.replaceAll(replace!, l)) }
        : w,
    );
  }
  return [...inner, { ...literalWord(''), value: undefined, text: '(input lines)', guesses: [input ?? ''], split: true, dynamic: true }];
}

/** Security: `xargs -a FILE` reads its names from FILE: the file is read, and what it names cannot be vouched for. */
function xargsInputFile(script: Script, options: Word[]): void {
  const values = options.map((w) => w.value ?? '');
  values.forEach((v, i) => {
    const file = v === '-a' || v === '--arg-file' ? options[i + 1] : /^-a./.test(v) ? literalWord(v.slice(2)) : v.startsWith('--arg-file=') ? literalWord(v.slice(11)) : undefined;
    if (!file) return;
    operand(script, file, 'read', 'xargs');
    script.push(askRule('dynamic-argument', `xargs runs a command on the names in ${short(file.text, 40)}, which this check cannot see`));
  });
}

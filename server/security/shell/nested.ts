/**
 * Commands that run other code: shells (`sh -c`, a script piped into `bash`), interpreters and pagers, eval, trap
 * and alias. A script they are given as text is read as a script of its own, one level deeper.
 */
import type { Script } from './context.js';
import { codeThreat, codeUsesNetwork, stringLiterals } from './embedded.js';
import { merge, noFacts, type Facts, type Result, type Stdin } from './facts.js';
import { secretInText } from './named-paths.js';
import { short } from './programs/check.js';
import { askRule, denyRule, readOnly } from './rules.js';
import type { Word } from './words.js';

const PAGERS_AND_EDITORS = /^(?:less|more|most|pg|man|info|vi|vim|nvim|view|vimdiff|nano|pico|emacs|emacsclient|ed|ex)$/;

/** A script string (sh -c, eval, watch…) read as a script of its own, with its `$0`, `$1`… when known. */
export function nested(script: Script, text: string, positional?: readonly Word[]): Result {
  return script.reader.script(text, script.depth + 1, positional);
}

/** Commands carried in arguments that may run later (git -c core.pager=…, sed `e`, awk system()): catastrophes only. */
export function embedded(script: Script, text: string): void {
  if (text.trim() === '') return;
  const result = nested(script, text);
  if (result.decision.decision === 'deny') script.push(result.decision);
}

/** `sh -c '…'`, `bash file`, `… | sh`: a script whose text is known is read as a nested script; any other asks. */
export function shell(script: Script, program: string, args: Word[], stdin: Stdin | undefined): Facts {
  const facts = noFacts();
  facts.shellLike = true;
  let i = 0;
  let command = false;
  let fromStdin = false;
  for (; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (v === undefined) break;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    if (v.startsWith('--')) {
      if (v === '--rcfile' || v === '--init-file') i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(v)) {
      if (v.includes('c')) command = true;
      if (v.includes('s')) fromStdin = true;
      if (/[oO]/.test(v)) i++;
      continue;
    }
    break;
  }
  const first = args[i];
  if (command) {
    if (!first) {
      script.push(askRule('nested-shell', `${program} -c without a script`));
    } else if (first.value === undefined) {
      for (const guess of first.guesses) embedded(script, guess);
      script.push(askRule('nested-shell', `${program} -c runs a script that is only known at run time (${short(first.text, 40)})`));
    } else {
      const result = nested(script, first.value, args.slice(i + 1));
      script.push(askRule('nested-shell', `${program} -c runs a nested script (${short(first.value, 60)})`));
      script.push(result.decision);
      merge(facts, result.facts);
    }
    return facts;
  }
  if (first && !fromStdin) {
    script.push(askRule('interpreter', `${program} runs the script file ${short(first.text, 40)}, which this check cannot see`));
    return facts;
  }
  if (stdin?.text !== undefined) {
    const result = nested(script, stdin.text);
    script.push(askRule('interpreter', `${program} runs the commands fed to it (${short(stdin.text, 60)})`));
    script.push(result.decision);
    merge(facts, result.facts);
  } else {
    script.push(askRule('interpreter', `${program} runs whatever commands are piped or typed into it`));
  }
  return facts;
}

/** python, node, pagers, `source`…: code this check cannot follow asks; its text is searched for the worst threats. */
export function interpreter(script: Script, program: string, args: Word[], stdin: Stdin | undefined): Facts {
  const facts = noFacts();
  facts.shellLike = true;
  const code = [...args.map((w) => w.value ?? w.text), stdin?.text ?? ''].join('\n');
  const threat = codeThreat(code);
  if (threat === 'reverse-shell') {
    script.push(denyRule('reverse-shell', `The ${program} code connects a shell to the network (a reverse shell)`));
  }
  if (threat === 'fork-bomb') script.push(denyRule('fork-bomb', `The ${program} code forks in a loop (a fork bomb)`));
  const secret = secretInText(code, script.paths);
  if (secret) {
    facts.readsSecret = secret;
    if (codeUsesNetwork(code)) script.push(denyRule('exfiltration', `The ${program} code reads ${secret} and talks to the network`));
  }
  for (const literal of stringLiterals(code, 32)) embedded(script, literal);
  if (PAGERS_AND_EDITORS.test(program)) {
    script.push(askRule('interpreter', `${program} is interactive and can open a shell or run commands from inside (e.g. "!sh")`));
  } else if (program === 'source' || program === '.') {
    script.push(
      askRule('interpreter', `${program} runs the commands in ${short(args[0]?.text ?? 'a file', 40)}, which this check cannot see`),
    );
  } else {
    script.push(askRule('interpreter', `${program} runs code (${short(args.map((w) => w.text).join(' ') || 'from its input', 60)})`));
  }
  return facts;
}

/** `eval …`: the arguments, joined, are read as a nested script. */
export function evalCommand(script: Script, args: Word[]): Facts {
  if (args.length === 0) return noFacts();
  if (args.some((w) => w.value === undefined)) {
    for (const w of args) for (const guess of w.guesses) embedded(script, guess);
    script.push(askRule('eval', 'eval runs text that is only known at run time as a command'));
    return { ...noFacts(), shellLike: true };
  }
  const text = args.map((w) => w.value!).join(' ');
  const result = nested(script, text);
  script.push(askRule('eval', `eval runs its arguments as a command (${short(text, 60)})`));
  script.push(result.decision);
  return merge({ ...noFacts(), shellLike: true }, result.facts);
}

/** `trap '…' EXIT`: the handler runs later, so it is read as a nested script now. */
export function trap(script: Script, args: Word[]): Facts {
  const handler = args[0];
  if (!handler || /^-[lp]$|^--$/.test(handler.value ?? '') || handler.value === '' || handler.value === '-') {
    script.push(readOnly(['trap']));
    return noFacts();
  }
  if (handler.value === undefined) {
    script.push(askRule('eval', 'trap sets a handler known only at run time to run on a signal or on exit'));
    return noFacts();
  }
  const result = nested(script, handler.value);
  script.push(askRule('eval', `trap runs ${short(handler.value, 50)} when the shell gets a signal or exits`));
  script.push(result.decision);
  return result.facts;
}

/** `alias ll='ls -l'`: what each alias stands for is read as a nested script. */
export function alias(script: Script, args: Word[]): Facts {
  script.push(readOnly(['alias']));
  for (const word of args) {
    if (word.value === undefined) {
      script.push(askRule('dynamic-argument', `alias ${short(word.text, 30)} defines a command only known at run time`));
      continue;
    }
    const eq = word.value.indexOf('=');
    if (eq > 0) script.push(nested(script, word.value.slice(eq + 1)).decision);
  }
  return noFacts();
}

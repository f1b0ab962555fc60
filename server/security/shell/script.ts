/**
 * The engine of the shell analysis: walks the bash syntax tree of one script, classifies every simple command in
 * it and collects the decisions. Each simple command is classified in simple-command.ts; functions (functions.ts),
 * redirections and pipes (redirects.ts), variables (variables.ts), wrappers (wrapped.ts), nested shells and
 * interpreters (nested.ts) and where paths lead (reach.ts) are judged beside it.
 */
import type { Node } from 'web-tree-sitter';
import { strictest, type PolicyDecision } from '../../decision.js';
import type { LineReader, Script } from './context.js';
import { merge, noFacts, type Facts, type Stdin } from './facts.js';
import { collectFunctionNames, functionDefinition } from './functions.js';
import type { ShellPaths } from './named-paths.js';
import { hiddenSubstitution } from './parser.js';
import { short } from './programs/check.js';
import { dangerousVariable } from './programs/environment.js';
import { mentioned } from './reach.js';
import { pipeline, redirect, redirected } from './redirects.js';
import { ASK_PRIORITY, askRule, denyRule, readOnly } from './rules.js';
import { classifyWords } from './simple-command.js';
import { arithmetic, assignment, declaration, expansion, testCommand, unset } from './variables.js';
import { evaluateWord, type Sweep, type Word, type WordScope } from './words.js';

/**
 * Asks after which what the command reaches cannot be told from its text: a program or script this check cannot see
 * into, text known only at run time, settings that make a program run another. An approved command with one of these
 * runs outside the OS sandbox (the approval says so); any other approved command runs in it, widened to its paths.
 */
const UNKNOWN_REACH = new Set([
  'shell:unparseable', 'shell:too-complex', 'shell:unknown-program', 'shell:dynamic-program', 'shell:dynamic-argument',
  'shell:substitution', 'shell:expansion', 'shell:eval', 'shell:nested-shell', 'shell:interpreter', 'shell:wrapper',
  'shell:privilege', 'shell:env-assignment', 'shell:dangerous-flag', 'shell:not-read-only', 'shell:git-config',
]);

const MAX_NODES = 60_000;

/** The state of one script: decisions so far, variables assigned, folders `cd` went to, functions defined. */
export class ScriptWalker implements Script {
  readonly decisions: PolicyDecision[] = [];
  readonly programs: string[] = [];
  readonly vars = new Map<string, string[]>();
  readonly cwdGuesses: string[] = [];
  readonly functions = new Set<string>();
  readonly scope: WordScope;
  readonly #sweeps = new Map<string, Sweep>();

  constructor(
    readonly reader: LineReader,
    readonly depth: number,
    positional: readonly Word[] = [],
  ) {
    this.scope = {
      home: reader.paths.home,
      vars: this.vars,
      sweeps: this.#sweeps,
      tooManyWords: (word) => this.push(askRule('too-complex', `${short(word, 40)} stands for more words than this check follows`)),
    };
    // `sh -c 'rm "$1"' _ {}` run by find: `$1` (and `$@`, `$*`) is each file found, as `{}` is.
    positional.forEach((word, k) => {
      this.vars.set(String(k), word.guesses);
      if (word.sweep) this.#sweeps.set(String(k), word.sweep);
    });
    const args = positional.slice(1);
    if (args.length > 0) {
      for (const name of ['@', '*']) {
        this.vars.set(name, args.flatMap((w) => w.guesses));
        const sweep = args.find((w) => w.sweep?.broad)?.sweep ?? args.find((w) => w.sweep)?.sweep;
        if (sweep) this.#sweeps.set(name, sweep);
      }
    }
  }

  get paths(): ShellPaths {
    return this.reader.paths;
  }

  push(decision: PolicyDecision): void {
    if (decision.decision !== 'allow') {
      if (decision.rule !== 'shell:outside-roots') this.reader.otherConcerns = true;
      if (UNKNOWN_REACH.has(decision.rule)) this.reader.unknownReach = true;
      if (decision.rule === 'shell:network') this.reader.network = true;
    }
    this.decisions.push(decision);
  }

  /** Folders a relative path may be read from: where the command starts, and where a `cd` in the line went. */
  get bases(): string[] {
    return [this.reader.cwd, ...this.cwdGuesses];
  }

  /** The verdict: deny over ask over allow; among asks, the most specific concern speaks. */
  decision(): PolicyDecision {
    if (this.decisions.length === 0) return readOnly(this.programs);
    const ranked = [...this.decisions].sort((a, b) => rank(a) - rank(b));
    const verdict = strictest(ranked);
    return verdict.decision === 'allow' ? readOnly(this.programs) : verdict;
  }

  /** Checks that need the whole line: a /dev/tcp connection or raw socket next to a shell is a reverse shell. */
  finish(facts: Facts): void {
    if (facts.devTcp && facts.shellLike) {
      this.push(denyRule('reverse-shell', 'The command connects a shell or interpreter to a network socket (/dev/tcp)'));
    }
    if (facts.rawSocket && facts.shellLike && facts.fifo) {
      this.push(denyRule('reverse-shell', 'The command wires a shell to a network connection through a named pipe'));
    }
  }

  /** Runs `fn` with its decisions kept apart, for wrappers that reword what the wrapped command gets. */
  collect<T>(fn: () => T): { value: T; decisions: PolicyDecision[] } {
    const start = this.decisions.length;
    const value = fn();
    return { value, decisions: this.decisions.splice(start) };
  }

  collectFunctions(node: Node): void {
    collectFunctionNames(node, this.functions);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The tree

  walk(node: Node): Facts {
    if (++this.reader.nodes > MAX_NODES) {
      if (this.reader.nodes === MAX_NODES + 1) this.push(askRule('too-complex', 'The command is too large to check'));
      return noFacts();
    }
    switch (node.type) {
      case 'comment':
        return noFacts();
      case 'command':
        return this.command(node, undefined);
      case 'pipeline':
        return pipeline(this, node, undefined);
      case 'redirected_statement':
        return redirected(this, node, undefined);
      case 'function_definition':
        return functionDefinition(this, node);
      case 'variable_assignment':
        return assignment(this, node, false);
      case 'declaration_command':
        return declaration(this, node);
      case 'unset_command':
        return unset(this, node);
      case 'test_command':
        testCommand(this, node);
        return this.children(node);
      case 'compound_statement':
        if (node.firstChild?.type === '((') arithmetic(this, node);
        return this.children(node);
      case 'c_style_for_statement':
        this.push(askRule('expansion', 'An arithmetic for-loop evaluates variables as arithmetic, which can run code hidden in them'));
        return this.children(node);
      case 'for_statement': {
        const variable = node.childForFieldName('variable');
        if (variable && dangerousVariable(variable.text)) {
          this.push(askRule('env-assignment', `The loop sets ${variable.text}, which changes what later commands run`));
        }
        // The loop variable carries these names into the body (`for f in ~/.ssh/*; do cat "$f"; done`).
        for (const value of node.childrenForFieldName('value')) mentioned(this, evaluateWord(value, this.scope), 'The loop goes over');
        return this.children(node);
      }
      case 'command_substitution':
        return this.substitution(node);
      case 'process_substitution':
        this.push(askRule('substitution', `The command runs another command inside ${short(node.text, 40)} and uses its output`));
        return this.children(node);
      case 'arithmetic_expansion':
        arithmetic(this, node);
        return this.children(node);
      case 'expansion':
        expansion(this, node);
        return this.children(node);
      case 'heredoc_redirect':
      case 'herestring_redirect':
      case 'file_redirect':
        return redirect(this, node, noFacts());
      case 'word':
      case 'regex':
      case 'string_content':
      case 'extglob_pattern':
      case 'heredoc_content':
        return this.hidden(node.text);
      default:
        return this.children(node);
    }
  }

  children(node: Node): Facts {
    const facts = noFacts();
    for (const child of node.namedChildren) merge(facts, this.walk(child));
    return facts;
  }

  /**
   * Security: the grammar reads some substitutions as plain text (a backquote inside `${x:=…}` or `${x/…/…}`, in an
   * unquoted here-document); bash runs them. Text with an unescaped `$(` or backquote is treated as what it is.
   */
  hidden(text: string): Facts {
    const inner = hiddenSubstitution(text);
    if (inner === undefined) return noFacts();
    this.push(askRule('substitution', `The command runs another command inside ${short(text, 40)} and uses its output`));
    const nested = this.reader.script(inner, this.depth + 1);
    this.push(nested.decision);
    return nested.facts;
  }

  substitution(node: Node): Facts {
    this.push(askRule('substitution', `The command runs another command inside ${short(node.text, 40)} and uses its output`));
    if (node.text.startsWith('`')) {
      // Backquotes unescape \` \$ \\ before parsing again: nested backquotes hide a second level from the grammar.
      const inner = node.text.slice(1, -1).replace(/\\([`$\\])/g, '$1');
      const nested = this.reader.script(inner, this.depth + 1);
      this.push(nested.decision);
      return nested.facts;
    }
    return this.children(node);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Simple commands

  command(node: Node, stdin: Stdin | undefined): Facts {
    const facts = noFacts();
    const words: Word[] = [];
    let ownStdin = stdin;
    for (const child of node.namedChildren) {
      if (child.type === 'variable_assignment') {
        merge(facts, assignment(this, child, true));
      } else if (child.type === 'herestring_redirect') {
        const word = child.namedChildren[0];
        if (word) {
          merge(facts, this.walk(word));
          const value = evaluateWord(word, this.scope);
          mentioned(this, value, 'The here-string names');
          ownStdin = { text: `${value.value ?? word.text}\n` };
        }
      } else if (child.type === 'file_redirect' || child.type === 'heredoc_redirect') {
        // handled once the command is known
      } else {
        const target = child.type === 'command_name' ? (child.firstNamedChild ?? child) : child;
        merge(facts, this.walk(target));
        words.push(evaluateWord(target, this.scope));
      }
    }
    const own = this.argv(words, ownStdin);
    // Security: `curl -d "$(cat ~/.ssh/id_rsa)" …` — the secret comes from a substitution inside the command.
    if (own.network && facts.readsSecret) {
      this.push(denyRule('exfiltration', `${short(words[0]?.text ?? 'The command', 20)} would send ${facts.readsSecret} off this machine`));
    }
    merge(facts, own);
    facts.output = own.output;
    facts.lists = own.lists;
    for (const child of node.namedChildren) {
      if (child.type === 'file_redirect' || child.type === 'heredoc_redirect') merge(facts, redirect(this, child, facts));
    }
    return facts;
  }

  /** One command as a list of words: the heart of the classification (simple-command.ts). */
  argv(words: Word[], stdin: Stdin | undefined): Facts {
    return classifyWords(this, words, stdin);
  }
}

function rank(decision: PolicyDecision): number {
  // Among refusals, a catastrophe says most about what the command would do.
  if (decision.decision === 'deny') return decision.rule.startsWith('shell:catastrophic:') ? -2 : -1;
  const i = ASK_PRIORITY.indexOf(decision.rule);
  return i === -1 ? ASK_PRIORITY.length : i;
}

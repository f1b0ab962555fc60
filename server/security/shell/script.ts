/**
 * The engine of the shell analysis: walks the bash syntax tree of one command line, classifies every simple
 * command in it and collects the decisions. `ShellAnalyzer` (analyzer.ts) is its public face.
 */
import { posix } from 'node:path';
import type { Node, Parser } from 'web-tree-sitter';
import { strictest, type PolicyDecision } from '../../decision.js';
import { catastrophe } from './catastrophic.js';
import { codeThreat, codeUsesNetwork, stringLiterals } from './embedded.js';
import { joinLineContinuations } from './parser.js';
import {
  holdsProtectedPath,
  holdsSecrets,
  isBlockDevice,
  namesProtectedPath,
  normalizeAbsolute,
  secretIn,
  secretInText,
  trustFile,
  type ShellPaths,
} from './paths.js';
import {
  dangerousVariable,
  DUMPS_ENVIRONMENT,
  INTERPRETER,
  isVersionQuery,
  METADATA_ONLY,
  MODIFIES_FILES,
  NETWORK,
  RAW_SOCKET,
  readOnlyCheck,
  readsRecursively,
  riskyAssignment,
  SHELLS,
  short,
} from './programs.js';
import { hostileGitSetting } from './git-config.js';
import { operandsOf, gitDirectories } from './operands.js';
import { absoluteFrom, isFolder, judgeWord, linkOut, lookalikeEscape, placeOf, realPath } from './outside.js';
import { ASK_PRIORITY, askRule, denyLookalike, denyPincerData, denyRule, KEEPS_OWN_RULE, readOnly } from './rules.js';
import { writesOf } from './writes.js';
import { evaluateWord, literalWord, type Word, type WordScope } from './words.js';
import { commandsInOptions, WRAPPERS, type WrapperSpec } from './wrappers.js';

/** What a command (or a part of a line) does, as far as the checks that span commands need to know. */
interface Facts {
  /** What secret it reads, if any. */
  readsSecret?: string;
  dumpsEnv: boolean;
  network: boolean;
  rawSocket: boolean;
  /** A shell, an interpreter or a program whose name is only known at run time. */
  shellLike: boolean;
  devTcp: boolean;
  fifo: boolean;
  /** Names a folder that holds Pincer's data (`find ~`): harmless alone, not when the names are then opened. */
  mentionsProtected: boolean;
  /** Opens files named by its input (`xargs cat`, `while read f; do cat "$f"; done`). */
  consumesNames: boolean;
  /** What it prints, when the text alone says (`echo …`, `cat <<EOF`), for a shell further down a pipe. */
  output?: string;
}

function noFacts(): Facts {
  return {
    dumpsEnv: false,
    network: false,
    rawSocket: false,
    shellLike: false,
    devTcp: false,
    fifo: false,
    mentionsProtected: false,
    consumesNames: false,
  };
}

function merge(into: Facts, from: Facts): Facts {
  into.readsSecret ??= from.readsSecret;
  into.dumpsEnv ||= from.dumpsEnv;
  into.network ||= from.network;
  into.rawSocket ||= from.rawSocket;
  into.shellLike ||= from.shellLike;
  into.devTcp ||= from.devTcp;
  into.fifo ||= from.fifo;
  into.mentionsProtected ||= from.mentionsProtected;
  into.consumesNames ||= from.consumesNames;
  return into;
}

/** Static text on a command's standard input (a here-document, a here-string, a pipe from `echo`). */
interface Stdin {
  text: string;
}

interface Result {
  decision: PolicyDecision;
  facts: Facts;
}

const MAX_DEPTH = 6;
const MAX_NODES = 60_000;
/** Where `/bin/rm` is just `rm`; a program anywhere else is a file this check does not know. */
const SYSTEM_BIN = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);
const HARMLESS_TARGETS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+|zero)$/;
const PAGERS_AND_EDITORS = /^(?:less|more|most|pg|man|info|vi|vim|nvim|view|vimdiff|nano|pico|emacs|emacsclient|ed|ex)$/;

/** A path outside the roots that the command reads or writes, for the approval card and folder grants. */
export interface OutsidePath {
  path: string;
  access: 'read' | 'write';
  /** The folder an "always allow this folder" grant would name: the path itself when it is a folder. */
  folder: string;
}

/** Reads one command line (and the scripts nested in it) for one `analyze` call. */
export class Reader {
  nodes = 0;
  /** Paths outside the roots the command names, real (symlinks followed). */
  readonly outside = new Map<string, OutsidePath>();
  /** Whether anything but reading outside the roots made the command ask or refuse. */
  otherConcerns = false;

  constructor(
    readonly parser: Parser,
    readonly paths: ShellPaths,
    /** The real folder the command starts in. */
    readonly cwd: string,
  ) {}

  /** Analyzes a script; continuation lines are read both as the grammar reads them and as bash joins them. */
  script(source: string, depth: number): Result {
    if (depth > MAX_DEPTH) {
      return { decision: askRule('too-complex', 'The command nests shells inside shells too deeply to check'), facts: noFacts() };
    }
    if (source.includes('\0')) {
      return { decision: askRule('unparseable', 'The command contains a NUL byte, which bash would cut the command at'), facts: noFacts() };
    }
    const variants = /\\\r?\n/.test(source) ? [source, joinLineContinuations(source)] : [source];
    const results = variants.map((text) => this.#parsed(text, depth));
    const facts = results.reduce((all, r) => merge(all, r.facts), noFacts());
    return { decision: strictest(results.map((r) => r.decision)), facts };
  }

  #parsed(source: string, depth: number): Result {
    const tree = this.parser.parse(source);
    if (!tree) return { decision: askRule('unparseable', 'The shell parser gave up on the command'), facts: noFacts() };
    try {
      const script = new Script(this, depth);
      const root = tree.rootNode;
      if (root.hasError) {
        const where = firstError(root);
        script.push(
          askRule('unparseable', `The command is not valid bash as far as the parser can tell${where ? ` (near "${short(where, 30)}")` : ''}`),
        );
      }
      script.collectFunctions(root);
      const facts = script.walk(root);
      script.finish(facts);
      return { decision: script.decision(), facts };
    } finally {
      tree.delete();
    }
  }
}

/** The command inside the first unescaped `$(…)` or backquote pair of a text, if any. */
export function hiddenSubstitution(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== '`') j += text[j] === '\\' ? 2 : 1;
      return text.slice(i + 1, j).replace(/\\([`$\\])/g, '$1');
    }
    if (c === '$' && text[i + 1] === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) break;
      }
      return text.slice(i + 2, j).replace(/^\(|\)$/g, '');
    }
  }
  return undefined;
}

function firstError(node: Node): string | undefined {
  if (node.isError || node.isMissing) return node.text || node.type;
  for (const child of node.children) {
    if (child.hasError || child.isMissing) {
      const found = firstError(child);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The state of one script: decisions so far, variables assigned, folders `cd` went to, functions defined. */
class Script {
  readonly decisions: PolicyDecision[] = [];
  readonly programs: string[] = [];
  readonly vars = new Map<string, string[]>();
  readonly cwdGuesses: string[] = [];
  readonly functions = new Set<string>();
  readonly scope: WordScope;

  constructor(
    readonly reader: Reader,
    readonly depth: number,
  ) {
    this.scope = { home: reader.paths.home, vars: this.vars };
  }

  get paths(): ShellPaths {
    return this.reader.paths;
  }

  push(decision: PolicyDecision): void {
    if (decision.decision !== 'allow' && decision.rule !== 'shell:outside-roots') this.reader.otherConcerns = true;
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
    if (node.type === 'function_definition') {
      const name = node.childForFieldName('name');
      if (name) this.functions.add(name.text);
    }
    for (const child of node.namedChildren) this.collectFunctions(child);
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
        return this.pipeline(node, undefined);
      case 'redirected_statement':
        return this.redirected(node, undefined);
      case 'function_definition':
        return this.functionDefinition(node);
      case 'variable_assignment':
        return this.assignment(node, false);
      case 'declaration_command':
        return this.declaration(node);
      case 'unset_command':
        return this.unset(node);
      case 'test_command':
        this.testCommand(node);
        return this.children(node);
      case 'compound_statement':
        if (node.firstChild?.type === '((') this.arithmetic(node);
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
        for (const value of node.childrenForFieldName('value')) this.mentioned(evaluateWord(value, this.scope), 'The loop goes over');
        return this.children(node);
      }
      case 'command_substitution':
        return this.substitution(node);
      case 'process_substitution':
        this.push(askRule('substitution', `The command runs another command inside ${short(node.text, 40)} and uses its output`));
        return this.children(node);
      case 'arithmetic_expansion':
        this.arithmetic(node);
        return this.children(node);
      case 'expansion':
        this.expansion(node);
        return this.children(node);
      case 'heredoc_redirect':
      case 'herestring_redirect':
      case 'file_redirect':
        return this.redirect(node, noFacts());
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

  arithmetic(node: Node): void {
    const hasVariables = (n: Node): boolean =>
      n.type === 'variable_name' || n.type === 'simple_expansion' || n.type === 'expansion' || (n.type === 'word' && /[A-Za-z_]/.test(n.text)) || n.namedChildren.some(hasVariables);
    if (hasVariables(node)) {
      this.push(askRule('expansion', `${short(node.text, 40)} evaluates variables as arithmetic, which runs code hidden in them (a[$(…)])`));
    }
  }

  /** `${!x}`, `${x@P}`, `${a[$i]}` evaluate text as a name, a prompt or arithmetic: each can run code. */
  expansion(node: Node): void {
    const operators = node.children.filter((c) => !c.isNamed).map((c) => c.type);
    const subscript = node.namedChildren.find((c) => c.type === 'subscript');
    const index = subscript?.childForFieldName('index');
    const riskyIndex = index !== null && index !== undefined && !/^(?:\d+|@|\*)$/.test(index.text);
    if (operators.includes('!') || operators.includes('@') || riskyIndex) {
      this.push(askRule('expansion', `${short(node.text, 40)} expands a name, prompt or array index at run time, which can run code hidden in a variable`));
    }
  }

  testCommand(node: Node): void {
    const visit = (n: Node): void => {
      if (n.type === 'test_operator') {
        if (n.text === '-v' || n.text === '-R') {
          this.push(askRule('expansion', `[[ ${n.text} … ]] evaluates a variable name, and an array index there runs code`));
        } else if (/^-(?:eq|ne|lt|le|gt|ge)$/.test(n.text)) {
          const operands = n.parent?.namedChildren.filter((c) => c.type !== 'test_operator') ?? [];
          if (operands.some((o) => !/^-?\d+$/.test(o.text))) {
            this.push(askRule('expansion', `[[ … ${n.text} … ]] evaluates its operands as arithmetic, which runs code hidden in a variable`));
          }
        }
      }
      for (const child of n.namedChildren) visit(child);
    };
    visit(node);
  }

  functionDefinition(node: Node): Facts {
    const name = node.childForFieldName('name')?.text ?? '';
    const body = node.childForFieldName('body');
    if (!body) return noFacts();
    const facts = this.walk(body);
    // Security: a function that calls itself through a pipe or in the background doubles every round (:(){ :|:& };:).
    let calls = 0;
    let spawning = false;
    const visit = (n: Node): void => {
      if (n.type === 'command' && n.childForFieldName('name')?.text === name) {
        calls++;
        if (n.parent?.type === 'pipeline' || n.nextSibling?.type === '&') spawning = true;
      }
      if ((n.type === 'pipeline' || n.type === 'list') && n.nextSibling?.type === '&' && n.text.includes(name)) spawning = true;
      for (const child of n.namedChildren) visit(child);
    };
    visit(body);
    if (spawning || calls >= 2) {
      this.push(denyRule('fork-bomb', `The function ${name} starts copies of itself that start copies of themselves (a fork bomb)`));
    }
    return facts;
  }

  assignment(node: Node, exported: boolean): Facts {
    const name = node.childForFieldName('name');
    const value = node.childForFieldName('value');
    const facts = value ? this.walk(value) : noFacts();
    if (name?.type === 'subscript') {
      merge(facts, this.walk(name));
      const index = name.childForFieldName('index');
      if (index && !/^\d+$/.test(index.text)) {
        this.push(askRule('expansion', `Assigning to ${short(name.text, 30)} evaluates the array index as arithmetic, which can run code`));
      }
      return facts;
    }
    if (!name) return facts;
    const word = value ? evaluateWord(value, this.scope) : undefined;
    if (riskyAssignment(name.text, word ? word.value : '', exported)) {
      this.push(
        askRule(
          'env-assignment',
          exported
            ? `The command puts ${name.text} in the environment of what it runs; only formatting settings (LANG, TZ, NO_COLOR…) are allowed without approval`
            : `The command sets ${name.text}, which changes what later commands run or load`,
        ),
      );
    }
    if (value && word) {
      if (word.value !== undefined) this.vars.set(name.text, [...(this.vars.get(name.text) ?? []), word.value]);
      if (namesProtectedPath(word, this.paths, this.cwdGuesses)) this.push(this.pincerData(word));
    }
    return facts;
  }

  declaration(node: Node): Facts {
    const keyword = node.firstChild?.text ?? 'declare';
    const facts = noFacts();
    let exported = keyword === 'export';
    let names = 0;
    for (const child of node.namedChildren) {
      if (child.type === 'word' && child.text.startsWith('-')) {
        if (/[ni]/.test(child.text)) {
          this.push(askRule('expansion', `${keyword} ${child.text} makes later assignments evaluate names or arithmetic, which can run code`));
        }
        if (child.text.includes('x')) exported = true;
        if (child.text.includes('p')) facts.dumpsEnv = true;
      } else if (child.type === 'variable_assignment') {
        names++;
        merge(facts, this.assignment(child, exported));
      } else if (child.type === 'variable_name') {
        names++;
      } else {
        names++;
        merge(facts, this.walk(child));
        this.push(askRule('dynamic-argument', `${keyword} ${short(child.text, 30)} sets a variable whose name is only known at run time`));
      }
    }
    if (names === 0) facts.dumpsEnv = true;
    this.programs.push(keyword);
    return facts;
  }

  unset(node: Node): Facts {
    for (const child of node.namedChildren) {
      if (child.type === 'variable_name' || (child.type === 'word' && /^(?:-[fvn]|[A-Za-z_]\w*)$/.test(child.text))) continue;
      this.push(askRule('expansion', `unset ${short(child.text, 30)} evaluates an array index or a name known only at run time, which can run code`));
    }
    return noFacts();
  }

  // -------------------------------------------------------------------------------------------------------------
  // Pipelines and redirections

  pipeline(node: Node, lastStdin: Stdin | undefined, stagesAfter: Node[] = []): Facts {
    const stages = [...node.namedChildren.filter((c) => c.type !== 'comment'), ...stagesAfter];
    return this.stages(stages, lastStdin);
  }

  /** The stages of a pipe, in order; what one prints (when known) is what the next one reads. */
  stages(stages: Node[], lastStdin?: Stdin, firstFacts?: Facts): Facts {
    const all: Facts[] = firstFacts ? [firstFacts] : [];
    stages.forEach((stage, i) => {
      const previous = all[all.length - 1];
      let stdin: Stdin | undefined = previous?.output !== undefined ? { text: previous.output } : undefined;
      if (i === stages.length - 1 && lastStdin) stdin = lastStdin;
      all.push(this.stage(stage, stdin));
    });
    for (let j = 1; j < all.length; j++) {
      if (!all[j]!.consumesNames) continue;
      const before = all.slice(0, j);
      const secret = before.find((f) => f.readsSecret)?.readsSecret;
      if (secret) this.push(askRule('secret-read', `The command opens files named by a command that lists ${secret}`));
      if (before.some((f) => f.mentionsProtected)) {
        this.push(askRule('pincer-data-within', "The command opens files named by a command that lists Pincer's data folder"));
      }
    }
    for (let j = 0; j < all.length; j++) {
      if (!all[j]!.network) continue;
      const source = all.slice(0, j).find((f) => f.readsSecret || f.dumpsEnv);
      if (source) {
        const what = source.readsSecret ?? 'the environment (tokens and keys)';
        this.push(denyRule('exfiltration', `The command pipes ${what} into a program that sends it over the network`));
      }
    }
    if (all.some((f) => f.rawSocket || f.devTcp) && all.some((f) => f.shellLike) && all.length > 1) {
      this.push(denyRule('reverse-shell', 'The command pipes a shell to or from a network connection (a reverse shell)'));
    }
    const facts = all.reduce((acc, f) => merge(acc, f), noFacts());
    return facts;
  }

  stage(node: Node, stdin: Stdin | undefined): Facts {
    if (node.type === 'command') return this.command(node, stdin);
    if (node.type === 'redirected_statement' && node.childForFieldName('body')?.type === 'command') return this.redirected(node, stdin);
    // A loop or group reading a pipe can open whatever the lines name.
    const facts = node.type === 'redirected_statement' ? this.redirected(node, stdin) : this.walk(node);
    facts.consumesNames = true;
    return facts;
  }

  redirected(node: Node, stdinFromPipe: Stdin | undefined): Facts {
    const body = node.childForFieldName('body');
    const redirects = node.childrenForFieldName('redirect');
    let stdin = stdinFromPipe;
    const after: Node[] = [];
    const later: Node[] = [];
    for (const r of redirects) {
      if (r.type === 'heredoc_redirect') {
        const text = r.namedChildren.find((c) => c.type === 'heredoc_body')?.text ?? '';
        stdin = { text };
        this.mentionedInText(text);
        // An unquoted delimiter (<<EOF, not <<'EOF') lets bash expand the body, substitutions included.
        const start = r.namedChildren.find((c) => c.type === 'heredoc_start')?.text ?? '';
        const expands = !/['"\\]/.test(start);
        if (expands) this.hidden(text);
        for (const child of r.namedChildren) {
          // The grammar puts the rest of the line (`| sh`, `&& rm …`, `> out`) inside the here-document's node.
          if (child.type === 'pipeline') after.push(...child.namedChildren);
          else if (child.type === 'heredoc_body') {
            if (expands) this.walk(child);
          } else if (!/^heredoc_(?:start|end)$/.test(child.type)) later.push(child);
        }
      } else if (r.type === 'herestring_redirect') {
        const word = r.namedChildren[0];
        if (word) {
          this.walk(word);
          const value = evaluateWord(word, this.scope);
          this.mentioned(value, 'The here-string names');
          stdin = { text: `${value.value ?? word.text}\n` };
        }
      }
    }
    let facts: Facts;
    if (!body) facts = noFacts();
    else if (after.length > 0) facts = this.stages(after, undefined, this.stage(body, stdin));
    else if (body.type === 'pipeline') facts = this.pipeline(body, stdin);
    else facts = this.stage(body, stdin);
    for (const r of redirects) if (r.type === 'file_redirect') merge(facts, this.redirect(r, facts));
    for (const r of later) merge(facts, r.type === 'file_redirect' ? this.redirect(r, facts) : this.walk(r));
    return facts;
  }

  /** A redirection: reads can expose secrets, writes change files, /dev/tcp reaches the network. */
  redirect(node: Node, commandFacts: Facts): Facts {
    const facts = noFacts();
    if (node.type !== 'file_redirect') {
      return this.children(node);
    }
    const operator = node.children.find((c) => !c.isNamed)?.type ?? '>';
    const destinations = node.childrenForFieldName('destination');
    const destination = destinations[0];
    if (!destination) return facts;
    for (const d of destinations) merge(facts, this.walk(d));
    const word = evaluateWord(destination, this.scope);
    if (namesProtectedPath(word, this.paths, this.cwdGuesses)) this.push(this.pincerData(word));
    this.lookalike(word);
    const value = word.value;
    const duplicate = (operator === '>&' || operator === '<&') && (destination.type === 'number' || value === '-' || /^\d+-?$/.test(value ?? ''));
    if (duplicate) return facts;
    if (value !== undefined && /^\/dev\/(?:tcp|udp)\//.test(value)) {
      facts.devTcp = facts.network = facts.rawSocket = true;
      if (commandFacts.shellLike) this.push(denyRule('reverse-shell', `The command connects a shell to ${value} (a reverse shell)`));
      else if (commandFacts.readsSecret || commandFacts.dumpsEnv) {
        this.push(denyRule('exfiltration', `The command sends ${commandFacts.readsSecret ?? 'the environment (tokens and keys)'} to ${value}`));
      }
      else this.push(askRule('network', `The command opens a network connection to ${value}`));
      return facts;
    }
    if (operator === '<') {
      this.operand(word, 'read', 'The command');
      const secret = secretIn(word, this.paths, this.cwdGuesses);
      if (secret) {
        facts.readsSecret = secret;
        if (commandFacts.network) this.push(denyRule('exfiltration', `The command feeds ${secret} to a program that sends it over the network`));
        else this.push(askRule('secret-read', `The command reads ${secret} (${short(word.text, 40)})`));
      }
      return facts;
    }
    // Everything else writes: > >> >| &> &>> <> and >& to a file name.
    this.trustWrite('The command', word, []);
    if (value !== undefined) this.operand(word, 'write', 'The command');
    if (value === undefined) {
      this.push(askRule('write-redirect', `The command writes to a file whose name is only known at run time (${short(word.text, 40)})`));
    } else if (value.startsWith('/') && HARMLESS_TARGETS.test(normalizeAbsolute(value))) {
      // Discarding output or writing to the terminal changes nothing.
    } else if (isBlockDevice(value)) {
      this.push(denyRule('block-device-write', `The command writes over the disk ${value}`));
    } else if (value === '/proc/sysrq-trigger') {
      this.push(denyRule('shutdown', "The command writes to the kernel's emergency trigger (reboot, power off, crash)"));
    } else {
      this.push(askRule('write-redirect', `The command writes to ${short(word.text, 60)} (${operator})`));
    }
    return facts;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Simple commands

  command(node: Node, stdin: Stdin | undefined): Facts {
    const facts = noFacts();
    const words: Word[] = [];
    let ownStdin = stdin;
    for (const child of node.namedChildren) {
      if (child.type === 'variable_assignment') {
        merge(facts, this.assignment(child, true));
      } else if (child.type === 'herestring_redirect') {
        const word = child.namedChildren[0];
        if (word) {
          merge(facts, this.walk(word));
          const value = evaluateWord(word, this.scope);
          this.mentioned(value, 'The here-string names');
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
    for (const child of node.namedChildren) {
      if (child.type === 'file_redirect' || child.type === 'heredoc_redirect') merge(facts, this.redirect(child, facts));
    }
    return facts;
  }

  /** One command as a list of words: the heart of the classification. */
  argv(words: Word[], stdin: Stdin | undefined): Facts {
    const facts = noFacts();
    const name = words[0];
    if (!name) return facts;
    const args = words.slice(1);
    for (const word of words) if (namesProtectedPath(word, this.paths, this.cwdGuesses)) this.push(this.pincerData(word));
    for (const word of words) this.lookalike(word);

    // Catastrophes are judged on every name the program could have, wherever it lives (`/tmp/x/rm` too).
    const candidates = name.value !== undefined ? [name.value] : name.guesses.filter(Boolean);
    for (const candidate of candidates) {
      const program = posix.basename(candidate).toLowerCase();
      const found = catastrophe(program, args, this.paths, this.cwdGuesses);
      if (found) this.push(denyRule(found.what, found.why));
      this.trustWrites(program, args);
    }

    if (name.value === undefined || name.split) {
      facts.shellLike = true;
      this.push(askRule('dynamic-program', `The program to run (${short(name.text, 40)}) is only known at run time`));
      return facts;
    }
    const value = name.value;
    const program = posix.basename(value);
    const trusted = !value.includes('/') || SYSTEM_BIN.has(posix.dirname(normalizeAbsolute(value.startsWith('/') ? value : `/${value}`))) && value.startsWith('/');

    const secret = args.map((w) => secretIn(w, this.paths, this.cwdGuesses)).find(Boolean);
    facts.mentionsProtected = args.some((w) => !w.value?.startsWith('-') && holdsProtectedPath(w, this.paths, this.cwdGuesses));
    if (secret) {
      facts.readsSecret = secret;
      if (!METADATA_ONLY.has(program)) this.push(askRule('secret-read', `${program} would read ${secret}`));
    }
    if (!secret && !METADATA_ONLY.has(program)) {
      // Paths inside a script argument (`sed 'r ~/.ssh/id_rsa'`, `awk '… getline < "/etc/shadow"'`).
      const inText = args.map((w) => (w.value && /[\s'"<]/.test(w.value) ? secretInText(w.value, this.paths) : undefined)).find(Boolean);
      if (inText) {
        facts.readsSecret = inText;
        this.push(askRule('secret-read', `${program} would read ${inText}`));
      }
    }
    if (readsRecursively(program, args)) {
      const targets = args.filter((w) => !w.value?.startsWith('-'));
      const folders = targets.length <= 1 ? [literalWord('.'), ...targets] : targets;
      if (folders.some((w) => holdsProtectedPath(w, this.paths, this.cwdGuesses))) {
        this.push(askRule('pincer-data-within', `${program} would read through Pincer's data folder`));
      }
      if (folders.some((w) => holdsSecrets(w, this.paths, this.cwdGuesses))) {
        facts.readsSecret ??= 'a folder that holds keys and credentials';
        this.push(askRule('secret-read', `${program} would read through a home or system folder, where keys and credentials live`));
      }
    }
    if (NETWORK.has(program)) facts.network = true;
    if (RAW_SOCKET.has(program)) facts.rawSocket = true;
    if (program === 'mkfifo' || program === 'mknod') facts.fifo = true;
    if (DUMPS_ENVIRONMENT.has(program) && args.every((w) => w.value?.startsWith('-') || w.value === undefined)) facts.dumpsEnv = true;
    if ((program === 'cd' || program === 'pushd') && trusted) this.trackCd(args);

    if (!trusted) {
      this.push(askRule('unknown-program', `${short(value, 60)} is a program file this check does not know`));
      return facts;
    }
    if (this.functions.has(value)) return facts; // its body was checked where it is defined
    this.programs.push(program);
    const classified = this.classify(program, args, stdin);
    if (readOnlyCheck(program) && !WRAPPERS.has(program) && !SHELLS.has(program)) this.readsOutside(program, args);
    if (program === 'git') this.gitConfig(args);
    merge(facts, classified);
    facts.output = classified.output;
    return facts;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Where paths lead

  /** Security: a read-only command may read only inside the roots, as the file tools may (SPEC §5). */
  readsOutside(program: string, args: Word[]): void {
    const { paths, recursive, followsLinks } = operandsOf(program, args);
    for (const word of paths) this.operand(word, 'read', program);
    if (!followsLinks) return;
    for (const word of recursive) {
      const judged = judgeWord(word, this.paths, this.bases);
      if (judged === 'too-many') continue; // already asked for by operand()
      for (const { real, place } of judged) {
        if (place !== 'inside') continue;
        const out = linkOut(real, this.paths);
        if (out === 'too-many') {
          this.push(askRule('too-complex', `${program} follows symbolic links through ${short(word.text, 40)}, a folder too large to check where each link leads`));
        } else if (out?.place === 'protected') {
          this.push(denyPincerData(`${program} follows a symbolic link under ${short(word.text, 40)} into Pincer's data folder (${out.real})`));
        } else if (out !== undefined) {
          this.outsidePath(out.real, 'read', `${program} follows a symbolic link under ${short(word.text, 40)} to ${out.real}`);
        }
      }
    }
  }

  /** Judges one path a command reads or writes: Pincer's data is refused, outside the roots is noted (and asks, for reads). */
  operand(word: Word, access: 'read' | 'write', program: string): void {
    const judged = judgeWord(word, this.paths, this.bases);
    if (judged === 'too-many') {
      this.push(askRule('too-complex', `${short(word.text, 40)} matches too many files to check where each one leads`));
      return;
    }
    for (const { real, place } of judged) {
      const shown = word.value === real ? real : `${short(word.text, 50)} (${real})`;
      if (place === 'protected') this.push(denyPincerData(`${program} would ${access} ${shown}, inside Pincer's data folder`));
      else if (place === 'outside') this.outsidePath(real, access, `${program} would ${access} ${shown}`);
    }
  }

  outsidePath(real: string, access: 'read' | 'write', what: string): void {
    const known = this.reader.outside.get(real);
    if (!known || known.access === 'read') this.reader.outside.set(real, { path: real, access, folder: isFolder(real) ? real : posix.dirname(real) });
    if (access === 'read') {
      this.push(askRule('outside-roots', `${what}, which is outside the folders Pincer may use (${this.paths.roots.join(', ')})`));
    }
  }

  /** Security: `．．／．．／etc` is a traversal waiting for the next program that normalises it. */
  lookalike(word: Word): void {
    const becomes = lookalikeEscape(word, this.paths, this.bases);
    if (becomes !== undefined) this.push(denyLookalike(short(word.text, 60), becomes));
  }

  /** Writes to the system's trust files (users, sudo, hosts, PAM, services, cron, authorized_keys) are refused. */
  trustWrites(program: string, args: Word[]): void {
    const writes = writesOf(program, args);
    if (writes.accountTool) {
      this.push(denyRule('trust-file-write', `${program} rewrites the system's user, password or sudo database`));
    }
    if (writes.installsCrontab) {
      this.push(denyRule('trust-file-write', 'crontab with a file (or "-") installs a timetable of commands that then run on their own'));
    }
    for (const target of writes.targets) this.trustWrite(program, target, writes.sourceNames);
  }

  trustWrite(program: string, target: Word, sourceNames: readonly string[]): void {
    const texts = target.value !== undefined ? [target.value] : target.guesses.filter(Boolean);
    for (const text of texts) {
      for (const absolute of absoluteFrom(text, this.paths.home, this.bases)) {
        const real = realPath(absolute);
        for (const path of [real, normalizeAbsolute(absolute), ...sourceNames.map((n) => posix.join(real, n))]) {
          const what = trustFile(path);
          if (what) {
            this.push(denyRule('trust-file-write', `${program} would write to ${path}, ${what}`));
            return;
          }
        }
      }
    }
  }

  /** Security: a repository's own settings (core.fsmonitor, diff.external, filters…) make git run programs. */
  gitConfig(args: Word[]): void {
    const moved = gitDirectories(args);
    const starts = moved.length > 0 ? moved.flatMap((w) => absoluteFrom(w.value ?? '.', this.paths.home, this.bases)) : this.bases;
    for (const start of new Set(starts.map(realPath))) {
      if (placeOf(start, this.paths) === 'protected') continue;
      const hostile = hostileGitSetting(start);
      if (hostile) {
        this.push(
          askRule('git-config', `The repository's settings (${hostile.file}) set ${hostile.key} = ${short(hostile.value, 60)}, which makes git run that program`),
        );
        return;
      }
    }
  }

  trackCd(args: Word[]): void {
    const target = args.find((w) => !w.value?.startsWith('-'));
    if (!target) {
      this.cwdGuesses.push(this.paths.home);
      return;
    }
    const from = this.cwdGuesses[this.cwdGuesses.length - 1] ?? this.reader.cwd;
    for (const guess of target.guesses) {
      if (guess.startsWith('/')) this.cwdGuesses.push(normalizeAbsolute(guess));
      else if (guess !== '' && guess !== '-') this.cwdGuesses.push(normalizeAbsolute(posix.resolve(from, guess)));
    }
  }

  classify(program: string, args: Word[], stdin: Stdin | undefined): Facts {
    const facts = noFacts();
    for (const script of commandsInOptions(program, args)) this.embedded(script);
    if (isVersionQuery(program, args)) {
      this.push(readOnly([program]));
      return facts;
    }
    if (SHELLS.has(program)) return this.shell(program, args, stdin);
    const wrapper = WRAPPERS.get(program);
    if (wrapper) return this.wrapper(program, wrapper, args, stdin);
    switch (program) {
      case 'eval':
        return this.evalCommand(args);
      case 'trap':
        return this.trap(args);
      case 'alias':
        return this.alias(args);
    }
    if (/^(?:g|m|n)?awk$/.test(program) && args.some((w) => /\/inet\d?\/(?:tcp|udp)\//.test(w.value ?? '') && /\|&/.test(w.value ?? ''))) {
      this.push(denyRule('reverse-shell', `The ${program} program runs commands it reads from a network connection (a reverse shell)`));
    }
    const check = readOnlyCheck(program);
    if (check) {
      const result = check(args, program);
      this.push(result.problem ? askRule(result.problem.rule, result.problem.why) : readOnly([program]));
      for (const script of result.scripts ?? []) this.embedded(script);
      for (const file of result.reads ?? []) this.mentioned(literalWord(file), `${program} reads`);
      for (const inner of result.commands ?? []) merge(facts, this.argv(inner, undefined));
      facts.output = this.output(program, args, stdin);
      return facts;
    }
    if (INTERPRETER.test(program)) return this.interpreter(program, args, stdin);
    if (MODIFIES_FILES.has(program)) {
      this.push(askRule('modifies-files', `${program} is not read-only: it changes files or the system`));
    } else if (NETWORK.has(program)) {
      this.push(askRule('network', `${program} talks to the network`));
    } else {
      this.push(askRule('unknown-program', `${program} is not on the list of read-only commands`));
    }
    return facts;
  }

  /** What a command prints when its arguments say so: `echo …`, `printf …`, `cat` of a here-document, `base64 -d`. */
  output(program: string, args: Word[], stdin: Stdin | undefined): string | undefined {
    if (args.some((w) => w.value === undefined)) return undefined;
    const values = args.map((w) => w.value!);
    switch (program) {
      case 'echo': {
        const text = values.filter((v, i) => !(/^-[neE]+$/.test(v) && values.slice(0, i).every((p) => /^-[neE]+$/.test(p))));
        return `${text.join(' ')}\n`;
      }
      case 'printf':
        return values.join(' ').replace(/\\n/g, '\n');
      case 'cat':
        return values.length === 0 ? stdin?.text : undefined;
      case 'find':
        return findPrints(values);
      case 'base64':
      case 'base32':
        if (values.some((v) => /^-[^-]*d|^--decode$/.test(v)) && stdin) {
          try {
            return Buffer.from(stdin.text.trim(), 'base64').toString('utf8');
          } catch {
            return undefined;
          }
        }
        return undefined;
      default:
        return undefined;
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Commands that run other commands

  /** A script string (sh -c, eval, watch…) read as a script of its own. */
  nested(script: string): Result {
    return this.reader.script(script, this.depth + 1);
  }

  /** Commands carried in arguments that may run later (git -c core.pager=…, sed `e`, awk system()): catastrophes only. */
  embedded(script: string): void {
    if (script.trim() === '') return;
    const nested = this.nested(script);
    if (nested.decision.decision === 'deny') this.push(nested.decision);
  }

  shell(program: string, args: Word[], stdin: Stdin | undefined): Facts {
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
        this.push(askRule('nested-shell', `${program} -c without a script`));
      } else if (first.value === undefined) {
        for (const guess of first.guesses) this.embedded(guess);
        this.push(askRule('nested-shell', `${program} -c runs a script that is only known at run time (${short(first.text, 40)})`));
      } else {
        const nested = this.nested(first.value);
        this.push(askRule('nested-shell', `${program} -c runs a nested script (${short(first.value, 60)})`));
        this.push(nested.decision);
        merge(facts, nested.facts);
      }
      return facts;
    }
    if (first && !fromStdin) {
      this.push(askRule('interpreter', `${program} runs the script file ${short(first.text, 40)}, which this check cannot see`));
      return facts;
    }
    if (stdin) {
      const nested = this.nested(stdin.text);
      this.push(askRule('interpreter', `${program} runs the commands fed to it (${short(stdin.text, 60)})`));
      this.push(nested.decision);
      merge(facts, nested.facts);
    } else {
      this.push(askRule('interpreter', `${program} runs whatever commands are piped or typed into it`));
    }
    return facts;
  }

  interpreter(program: string, args: Word[], stdin: Stdin | undefined): Facts {
    const facts = noFacts();
    facts.shellLike = true;
    const code = [...args.map((w) => w.value ?? w.text), stdin?.text ?? ''].join('\n');
    const threat = codeThreat(code);
    if (threat === 'reverse-shell') this.push(denyRule('reverse-shell', `The ${program} code connects a shell to the network (a reverse shell)`));
    if (threat === 'fork-bomb') this.push(denyRule('fork-bomb', `The ${program} code forks in a loop (a fork bomb)`));
    const secret = secretInText(code, this.paths);
    if (secret) {
      facts.readsSecret = secret;
      if (codeUsesNetwork(code)) this.push(denyRule('exfiltration', `The ${program} code reads ${secret} and talks to the network`));
    }
    for (const literal of stringLiterals(code, 32)) this.embedded(literal);
    if (PAGERS_AND_EDITORS.test(program)) {
      this.push(askRule('interpreter', `${program} is interactive and can open a shell or run commands from inside (e.g. "!sh")`));
    } else if (program === 'source' || program === '.') {
      this.push(askRule('interpreter', `${program} runs the commands in ${short(args[0]?.text ?? 'a file', 40)}, which this check cannot see`));
    } else {
      this.push(askRule('interpreter', `${program} runs code (${short(args.map((w) => w.text).join(' ') || 'from its input', 60)})`));
    }
    return facts;
  }

  evalCommand(args: Word[]): Facts {
    if (args.length === 0) return noFacts();
    if (args.some((w) => w.value === undefined)) {
      for (const w of args) for (const guess of w.guesses) this.embedded(guess);
      this.push(askRule('eval', 'eval runs text that is only known at run time as a command'));
      return { ...noFacts(), shellLike: true };
    }
    const script = args.map((w) => w.value!).join(' ');
    const nested = this.nested(script);
    this.push(askRule('eval', `eval runs its arguments as a command (${short(script, 60)})`));
    this.push(nested.decision);
    return merge({ ...noFacts(), shellLike: true }, nested.facts);
  }

  trap(args: Word[]): Facts {
    const handler = args[0];
    if (!handler || /^-[lp]$|^--$/.test(handler.value ?? '') || handler.value === '' || handler.value === '-') {
      this.push(readOnly(['trap']));
      return noFacts();
    }
    if (handler.value === undefined) {
      this.push(askRule('eval', 'trap sets a handler known only at run time to run on a signal or on exit'));
      return noFacts();
    }
    const nested = this.nested(handler.value);
    this.push(askRule('eval', `trap runs ${short(handler.value, 50)} when the shell gets a signal or exits`));
    this.push(nested.decision);
    return nested.facts;
  }

  alias(args: Word[]): Facts {
    this.push(readOnly(['alias']));
    for (const word of args) {
      if (word.value === undefined) {
        this.push(askRule('dynamic-argument', `alias ${short(word.text, 30)} defines a command only known at run time`));
        continue;
      }
      const eq = word.value.indexOf('=');
      if (eq > 0) this.push(this.nested(word.value.slice(eq + 1)).decision);
    }
    return noFacts();
  }

  /** sudo, env, timeout, xargs…: the command they run is classified; some are harmless themselves, some never. */
  wrapper(program: string, spec: WrapperSpec, args: Word[], stdin: Stdin | undefined): Facts {
    const facts = noFacts();
    const scripts: string[] = [];
    let i = 0;
    let lookup = false;
    let noCommand = false;
    let bad: string | undefined;
    let dynamic: Word | undefined;
    for (; i < args.length; i++) {
      const word = args[i]!;
      const v = word.value;
      if (v === undefined || word.split) {
        dynamic = word;
        break;
      }
      if (v === '--') {
        i++;
        break;
      }
      if (spec.assignments && /^[A-Za-z_]\w*=/.test(v)) {
        const name = v.slice(0, v.indexOf('='));
        if (riskyAssignment(name, v.slice(v.indexOf('=') + 1), true)) {
          this.push(askRule('env-assignment', `${program} puts ${name} in the environment of the command; only formatting settings (LANG, TZ, NO_COLOR…) are allowed without approval`));
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
          const script = attached ?? args[++i]?.value;
          if (script === undefined) dynamic = args[i] ?? word;
          else scripts.push(script);
        } else if (spec.lookupLong?.includes(long)) lookup = true;
        else if (spec.badLong?.includes(long)) bad = v;
        else if (spec.valueLong?.includes(long) && attached === undefined) i++;
        continue;
      }
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (spec.scriptShort?.includes(c)) {
          const script = v.slice(k + 1) || args[++i]?.value;
          if (script === undefined) dynamic = args[i] ?? word;
          else scripts.push(script);
          break;
        }
        if (spec.lookupShort?.includes(c)) lookup = true;
        if (spec.noCommandShort?.includes(c)) noCommand = true;
        if (spec.badShort?.includes(c)) bad = `-${c}`;
        if (spec.valueShort?.includes(c)) {
          if (k === v.length - 1) i++;
          break;
        }
      }
    }
    i += spec.lead ?? 0;
    const inner = dynamic ? [] : args.slice(i);
    const privileged = spec.kind === 'privilege';

    for (const script of scripts) {
      const nested = this.nested(script);
      this.push(nested.decision);
      merge(facts, nested.facts);
    }
    if (spec.generic || dynamic) this.scanForCatastrophes(args);
    if (dynamic) {
      this.push(askRule('dynamic-argument', `${program} gets ${short(dynamic.text, 40)}, only known at run time, where the command to run could be`));
      return facts;
    }
    if (privileged) this.push(askRule('privilege', `${program} runs ${inner.length ? short(inner.map((w) => w.text).join(' '), 50) : 'a shell'} as another user`));
    if (bad) this.push(askRule('dangerous-flag', `${program} ${bad} ${spec.badWhy ?? 'writes a file'}`));
    if (lookup) {
      this.push(readOnly([program]));
      return facts;
    }
    if (noCommand) {
      this.push(askRule('wrapper', `${program} with these options changes a running process or the system`));
      return facts;
    }
    if (spec.generic) {
      this.push(askRule('wrapper', `${program} runs another command in a way this check does not follow (${short(args.map((w) => w.text).join(' '), 50)})`));
      return facts;
    }
    if (inner.length === 0) {
      if (scripts.length === 0 && !privileged) {
        if (program === 'env') facts.dumpsEnv = true;
        if (spec.alone === 'ask') this.push(askRule('wrapper', `${program} without a command waits for input or does something this check does not follow`));
        else this.push(readOnly([program]));
      }
      return facts;
    }
    if (program === 'xargs') facts.consumesNames = true;
    const innerArgs = program === 'xargs' ? xargsCommand(args.slice(0, i), inner, stdin) : inner;
    const { value: innerFacts, decisions } = this.collect(() =>
      spec.joinsScript && !scripts.length ? this.joined(innerArgs) : this.argv(innerArgs, program === 'xargs' ? undefined : stdin),
    );
    merge(facts, innerFacts);
    if (spec.transparent && !bad) {
      for (const d of decisions) {
        this.push(d.decision === 'ask' && !KEEPS_OWN_RULE.includes(d.rule) && d.rule !== 'shell:wrapper' ? this.rewordForWrapper(program, d) : d);
      }
    } else {
      if (!privileged) this.push(askRule('wrapper', `${program} ${spec.why ?? 'runs another command'}: ${short(inner.map((w) => w.text).join(' '), 50)}`));
      for (const d of decisions) this.push(d);
    }
    return facts;
  }

  rewordForWrapper(program: string, decision: PolicyDecision): PolicyDecision {
    const inner = decision.reason.replace(/\s*(?:Approve it|Approve only)[^]*$/, '');
    return askRule('wrapper', `${program} runs a command that is not read-only: ${inner} (${decision.rule})`);
  }

  /** `watch ls -l`: the words are joined and handed to `sh -c`. */
  joined(words: Word[]): Facts {
    if (words.some((w) => w.value === undefined)) {
      this.push(askRule('dynamic-argument', 'The command to repeat is only known at run time'));
      return noFacts();
    }
    const nested = this.nested(words.map((w) => w.value!).join(' '));
    this.push(nested.decision);
    return nested.facts;
  }

  /** For wrappers whose options this check does not follow: every tail of the words is tried as a command. */
  scanForCatastrophes(args: Word[]): void {
    for (let k = 0; k < Math.min(args.length, 12); k++) {
      const word = args[k]!;
      if (word.value !== undefined && word.value.includes(' ')) this.embedded(word.value);
      if (word.value === undefined || word.value.startsWith('-')) continue;
      const { decisions } = this.collect(() => this.argv(args.slice(k), undefined));
      for (const d of decisions) if (d.decision === 'deny') this.push(d);
    }
  }

  /** Secrets and Pincer's folder named where no command reads them yet (loop lists, here-strings). */
  mentioned(word: Word, what: string): void {
    if (namesProtectedPath(word, this.paths, this.cwdGuesses)) this.push(this.pincerData(word));
    const secret = secretIn(word, this.paths, this.cwdGuesses);
    if (secret) this.push(askRule('secret-read', `${what} ${secret} (${short(word.text, 40)})`));
  }

  mentionedInText(text: string): void {
    const secret = secretInText(text, this.paths);
    if (secret) this.push(askRule('secret-read', `The here-document names ${secret}`));
    if (namesProtectedPath(literalWord(text), this.paths, this.cwdGuesses)) {
      this.push(denyPincerData("The here-document names Pincer's data folder"));
    }
  }

  /** Naming the data folder (or something in it) is refused; a glob over a folder that holds it (`ls /*`) asks. */
  pincerData(word: Word): PolicyDecision {
    return namesProtectedPath(word, this.paths, this.cwdGuesses) === 'reaches'
      ? askRule('pincer-data-within', `The command lists a folder that holds Pincer's data folder (${short(word.text, 50)})`)
      : denyPincerData(`The command names Pincer's data folder (${short(word.text, 50)})`);
  }
}

function rank(decision: PolicyDecision): number {
  // Among refusals, a catastrophe says most about what the command would do.
  if (decision.decision === 'deny') return decision.rule.startsWith('shell:catastrophic:') ? -2 : -1;
  const i = ASK_PRIORITY.indexOf(decision.rule);
  return i === -1 ? ASK_PRIORITY.length : i;
}

/** The folders an unfiltered `find` prints first (its starting points), or undefined when tests pick what it prints. */
function findPrints(values: string[]): string | undefined {
  const starts: string[] = [];
  let i = 0;
  while (i < values.length && /^-[HLP]$/.test(values[i]!)) i++;
  for (; i < values.length && !/^[-(!),]/.test(values[i]!); i++) starts.push(values[i]!);
  const tests = values.slice(i).filter((v) => /^-/.test(v) && !/^-(?:maxdepth|mindepth|depth|xdev|mount|print0?|type|xtype|follow|noleaf|ignore_readdir_race|daystart)$/.test(v));
  if (tests.length > 0) return undefined;
  return `${(starts.length > 0 ? starts : ['.']).join('\n')}\n`;
}

/**
 * The command xargs runs, with the input lines as its last words (or in place of the -I replace string). When the
 * input is known (`echo / | xargs rm -rf`), those are the words, so the command is judged as what it is.
 */
function xargsCommand(options: Word[], inner: Word[], stdin: Stdin | undefined): Word[] {
  const input = stdin?.text.trim();
  const values = options.map((w) => w.value ?? '');
  let replace: string | undefined;
  values.forEach((v, i) => {
    if (v === '-I') replace = values[i + 1];
    else if (/^-I./.test(v)) replace = v.slice(2);
    else if (v === '-i' || v === '--replace') replace = '{}';
    else if (/^(?:-i|--replace=)./.test(v)) replace = v.replace(/^(?:-i|--replace=)/, '');
  });
  if (input !== undefined && replace !== undefined) {
    const lines = input.split('\n');
    return inner.map((w) => (w.value?.includes(replace!) ? { ...literalWord(w.value.replaceAll(replace!, lines[0] ?? '')), guesses: lines.map((l) => w.value!.replaceAll(replace!, l)) } : w));
  }
  return [...inner, { ...literalWord(''), value: undefined, text: '(input lines)', guesses: [input ?? ''], split: true, dynamic: true }];
}

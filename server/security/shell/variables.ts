/**
 * Variables: assignments and declarations (which change what later commands run or load), and the expansions,
 * array indices and arithmetic that evaluate text at run time, where code can hide (a[$(…)]).
 */
import type { Node } from 'web-tree-sitter';
import type { Script } from './context.js';
import { merge, noFacts, type Facts } from './facts.js';
import { short } from './programs/check.js';
import { dangerousVariable, riskyAssignment } from './programs/environment.js';
import { pincerData } from './reach.js';
import { askRule } from './rules.js';
import { evaluateWord } from './words.js';

/** `NAME=value`: a variable that changes what runs asks; literal values are kept for the words that follow. */
export function assignment(script: Script, node: Node, exported: boolean): Facts {
  const name = node.childForFieldName('name');
  const value = node.childForFieldName('value');
  const facts = value ? script.walk(value) : noFacts();
  if (name?.type === 'subscript') {
    merge(facts, script.walk(name));
    const index = name.childForFieldName('index');
    if (index && !/^\d+$/.test(index.text)) {
      script.push(askRule('expansion', `Assigning to ${short(name.text, 30)} evaluates the array index as arithmetic, which can run code`));
    }
    return facts;
  }
  if (!name) return facts;
  const word = value ? evaluateWord(value, script.scope) : undefined;
  if (riskyAssignment(name.text, word ? word.value : '', exported)) {
    script.push(
      askRule(
        'env-assignment',
        exported
          ? `The command puts ${name.text} in the environment of what it runs; ` +
            'only formatting settings (LANG, TZ, NO_COLOR…) are allowed without approval'
          : `The command sets ${name.text}, which changes what later commands run or load`,
      ),
    );
  }
  if (value && word) {
    if (word.value !== undefined) script.vars.set(name.text, [...(script.vars.get(name.text) ?? []), word.value]);
    pincerData(script, word);
  }
  return facts;
}

/** declare, export, local, readonly, typeset: options that make assignments evaluate code ask. */
export function declaration(script: Script, node: Node): Facts {
  const keyword = node.firstChild?.text ?? 'declare';
  const facts = noFacts();
  let exported = keyword === 'export';
  let names = 0;
  for (const child of node.namedChildren) {
    if (child.type === 'word' && child.text.startsWith('-')) {
      if (/[ni]/.test(child.text)) {
        script.push(
          askRule('expansion', `${keyword} ${child.text} makes later assignments evaluate names or arithmetic, which can run code`),
        );
      }
      if (child.text.includes('x')) exported = true;
      if (child.text.includes('p')) facts.dumpsEnv = true;
    } else if (child.type === 'variable_assignment') {
      names++;
      merge(facts, assignment(script, child, exported));
    } else if (child.type === 'variable_name') {
      names++;
    } else {
      names++;
      merge(facts, script.walk(child));
      script.push(askRule('dynamic-argument', `${keyword} ${short(child.text, 30)} sets a variable whose name is only known at run time`));
    }
  }
  if (names === 0) facts.dumpsEnv = true;
  script.programs.push(keyword);
  return facts;
}

/** `unset a[$i]` evaluates its index; plain names are harmless. */
export function unset(script: Script, node: Node): Facts {
  for (const child of node.namedChildren) {
    if (child.type === 'variable_name' || (child.type === 'word' && /^(?:-[fvn]|[A-Za-z_]\w*)$/.test(child.text))) continue;
    script.push(
      askRule('expansion', `unset ${short(child.text, 30)} evaluates an array index or a name known only at run time, which can run code`),
    );
  }
  return noFacts();
}

/** `(( … ))` and `$(( … ))` evaluate the variables in them as arithmetic, and an index there runs code. */
export function arithmetic(script: Script, node: Node): void {
  const hasVariables = (n: Node): boolean =>
    n.type === 'variable_name' ||
    n.type === 'simple_expansion' ||
    n.type === 'expansion' ||
    (n.type === 'word' && /[A-Za-z_]/.test(n.text)) ||
    n.namedChildren.some(hasVariables);
  if (hasVariables(node)) {
    script.push(
      askRule('expansion', `${short(node.text, 40)} evaluates variables as arithmetic, which runs code hidden in them (a[$(…)])`),
    );
  }
}

/** `${!x}`, `${x@P}`, `${a[$i]}` evaluate text as a name, a prompt or arithmetic: each can run code. */
export function expansion(script: Script, node: Node): void {
  const operators = node.children.filter((c) => !c.isNamed).map((c) => c.type);
  const subscript = node.namedChildren.find((c) => c.type === 'subscript');
  const index = subscript?.childForFieldName('index');
  const riskyIndex = index !== null && index !== undefined && !/^(?:\d+|@|\*)$/.test(index.text);
  // `${PATH:=.}` assigns as `PATH=.` does, and what such a variable holds changes what later commands run.
  const assigned = /^\$\{([A-Za-z_]\w*):?=/.exec(node.text)?.[1];
  if (assigned !== undefined && dangerousVariable(assigned)) {
    script.push(askRule('env-assignment', `${short(node.text, 40)} sets ${assigned}, which changes what later commands run`));
  }
  if (operators.includes('!') || operators.includes('@') || riskyIndex || arithmeticSubstring(node.text)) {
    script.push(
      askRule(
        'expansion',
        `${short(node.text, 40)} expands a name, prompt or array index at run time, which can run code hidden in a variable`,
      ),
    );
  }
}

/**
 * `${v:OFFSET}` and `${v:OFFSET:LENGTH}`: bash evaluates both as arithmetic, where an array index runs a command
 * (`x='a[$(cat .env)]'; echo ${y:x}`). Only plain numbers pass; `${v:-…}`, `${v:=…}`, `${v:+…}`, `${v:?…}` are not
 * substrings.
 */
function arithmeticSubstring(text: string): boolean {
  const substring = /^\$\{#?(?:[A-Za-z_]\w*(?:\[[^\]]*\])?|[0-9@*])(:(?![-=+?])[\s\S]*)\}$/.exec(text)?.[1];
  return substring !== undefined && !/^:\s*-?\d+\s*(?::\s*-?\d+\s*)?$/.test(substring);
}

/** `[[ -v … ]]` and numeric comparisons in `[[ … ]]` evaluate names and arithmetic. */
export function testCommand(script: Script, node: Node): void {
  const visit = (n: Node): void => {
    if (n.type === 'test_operator') {
      if (n.text === '-v' || n.text === '-R') {
        script.push(askRule('expansion', `[[ ${n.text} … ]] evaluates a variable name, and an array index there runs code`));
      } else if (/^-(?:eq|ne|lt|le|gt|ge)$/.test(n.text)) {
        const operands = n.parent?.namedChildren.filter((c) => c.type !== 'test_operator') ?? [];
        if (operands.some((o) => !/^-?\d+$/.test(o.text))) {
          script.push(
            askRule('expansion', `[[ … ${n.text} … ]] evaluates its operands as arithmetic, which runs code hidden in a variable`),
          );
        }
      }
    }
    for (const child of n.namedChildren) visit(child);
  };
  visit(node);
}

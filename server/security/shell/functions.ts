/** Shell functions a script defines: their names (a call to one is not a program) and their bodies. */
import type { Node } from 'web-tree-sitter';
import type { Script } from './context.js';
import { noFacts, type Facts } from './facts.js';
import { denyRule } from './rules.js';

/** Adds the name of every function defined anywhere under `node`, before the walk reaches a call to one. */
export function collectFunctionNames(node: Node, into: Set<string>): void {
  if (node.type === 'function_definition') {
    const name = node.childForFieldName('name');
    if (name) into.add(name.text);
  }
  for (const child of node.namedChildren) collectFunctionNames(child, into);
}

/** A function's body is checked where it is defined, as if it ran there. */
export function functionDefinition(script: Script, node: Node): Facts {
  const name = node.childForFieldName('name')?.text ?? '';
  const body = node.childForFieldName('body');
  if (!body) return noFacts();
  const facts = script.walk(body);
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
    script.push(denyRule('fork-bomb', `The function ${name} starts copies of itself that start copies of themselves (a fork bomb)`));
  }
  return facts;
}

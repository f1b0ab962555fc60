/** Tool calls from Python call syntax: the pythonic, LFM2, Gemma and python-tag shapes share these readers. */
import { argumentsFrom } from './json-args.js';
import { readPython, type PyNode } from './python-syntax.js';

/** A call read from Python syntax, its name as written. */
export interface PythonCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The call a node is, when it is one with keyword arguments only. A positional argument is refused (the call stays
 * text): mapping it onto a parameter would mean guessing the schema's order.
 */
export function callFromNode(node: PyNode): PythonCall | undefined {
  if (node.kind !== 'call' || node.positional.length > 0) return undefined;
  const entries: [string, unknown][] = [];
  for (const [key, value] of node.keywords) {
    const converted = toJson(value);
    if (converted === REFUSED) return undefined;
    entries.push([key, converted]);
  }
  const args = argumentsFrom(entries);
  return args && { name: node.name, arguments: args };
}

const REFUSED = Symbol('refused');

/** A literal as JSON data; a call nested in an argument is refused. */
function toJson(node: PyNode): unknown {
  switch (node.kind) {
    case 'value':
      return node.value;
    case 'list': {
      const items = node.items.map(toJson);
      return items.includes(REFUSED) ? REFUSED : items;
    }
    case 'dict': {
      const entries: [string, unknown][] = [];
      for (const [key, value] of node.entries) {
        const converted = toJson(value);
        if (converted === REFUSED) return REFUSED;
        entries.push([key, converted]);
      }
      return argumentsFrom(entries) ?? REFUSED;
    }
    case 'call':
      return REFUSED;
  }
}

/** The calls of a list of calls, `[f(a=1), g()]`; undefined when the list is empty or holds anything else. */
export function callsFromList(node: PyNode): PythonCall[] | undefined {
  if (node.kind !== 'list' || node.items.length === 0) return undefined;
  const calls = node.items.map(callFromNode);
  return calls.some((c) => c === undefined) ? undefined : (calls as PythonCall[]);
}

/** Reads a `[f(a=1), g()]` list starting at `start`. */
export function readPythonCallList(text: string, start: number): { calls: PythonCall[]; end: number } | undefined {
  const read = readPython(text, start);
  const calls = read && callsFromList(read.node);
  return calls && read && { calls, end: read.end };
}

/**
 * Reads a whole body of calls: one or more statements (one per line or `;`-separated), each a call or a list of
 * calls; with `unwrapPrint`, `print(f(a=1))` is f's call (Gemma writes its calls as code that prints). Undefined
 * unless the whole body is calls.
 */
export function readPythonCallBody(body: string, unwrapPrint: boolean): PythonCall[] | undefined {
  const calls: PythonCall[] = [];
  let i = 0;
  for (;;) {
    while (i < body.length && /[\s;]/.test(body[i]!)) i++;
    if (i >= body.length) break;
    const read = readPython(body, i);
    if (!read) return undefined;
    const node = unwrapPrint ? unwrapped(read.node) : read.node;
    const found = node.kind === 'list' ? callsFromList(node) : [callFromNode(node)];
    if (!found || found.some((c) => c === undefined)) return undefined;
    calls.push(...(found as PythonCall[]));
    i = read.end;
    // Statements end at a line break or `;`, never mid-line.
    const gap = /^[ \t]*/.exec(body.slice(i))![0].length;
    const next = body[i + gap];
    if (next !== undefined && next !== '\n' && next !== '\r' && next !== ';') return undefined;
  }
  return calls.length > 0 ? calls : undefined;
}

function unwrapped(node: PyNode): PyNode {
  const inner = node.kind === 'call' && node.name === 'print' && node.keywords.length === 0 ? node.positional : [];
  return inner.length === 1 && inner[0]!.kind === 'call' ? inner[0]! : node;
}

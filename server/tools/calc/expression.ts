/**
 * Arithmetic for the `calculate` tool: a hand-written lexer, recursive-descent parser and evaluator.
 * Security: never eval, Function, vm or an expression library (expr-eval had remote code execution). The grammar has
 * no strings, properties, assignments or calls other than the fixed functions below, so input can only compute.
 */
import { ToolError } from '../../errors.js';

// Denial of service: these bounds keep every call to a few milliseconds and the parser's recursion far from the
// stack limit, whatever a model or a prompt-injected page sends.
export const MAX_EXPRESSION_LENGTH = 10_000;
export const MAX_TOKENS = 5_000;
export const MAX_DEPTH = 100;

interface FunctionSpec {
  minArgs: number;
  maxArgs: number;
  apply(args: number[], position: number): number;
}

const oneArg = (fn: (x: number) => number): FunctionSpec => ({ minArgs: 1, maxArgs: 1, apply: ([x]) => fn(x!) });

// Security: Maps, not object literals, so "constructor" or "__proto__" finds nothing rather than Object.prototype.
const FUNCTIONS = new Map<string, FunctionSpec>([
  ['sqrt', oneArg(Math.sqrt)],
  ['abs', oneArg(Math.abs)],
  ['round', { minArgs: 1, maxArgs: 2, apply: ([x, digits = 0], position) => round(x!, digits, position) }],
  ['floor', oneArg(Math.floor)],
  ['ceil', oneArg(Math.ceil)],
  ['min', { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.min(...args) }],
  ['max', { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.max(...args) }],
  ['log', { minArgs: 1, maxArgs: 2, apply: ([x, base]) => (base === undefined ? Math.log(x!) : logBase(x!, base)) }],
  ['log10', oneArg(Math.log10)],
  ['log2', oneArg(Math.log2)],
  ['exp', oneArg(Math.exp)],
  ['sin', oneArg(Math.sin)],
  ['cos', oneArg(Math.cos)],
  ['tan', oneArg(Math.tan)],
  ['asin', oneArg(Math.asin)],
  ['acos', oneArg(Math.acos)],
  ['atan', oneArg(Math.atan)],
  ['pow', { minArgs: 2, maxArgs: 2, apply: ([x, y]) => x! ** y! }],
]);

const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
]);

const KNOWN_NAMES = `Known functions: ${[...FUNCTIONS.keys()].join(', ')}; constants: ${[...CONSTANTS.keys()].join(', ')}.`;

/** Evaluates an arithmetic expression; throws ToolError('INVALID_EXPRESSION') naming the position of any problem. */
export function evaluateExpression(source: string): number {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw fail(
      `The expression is ${source.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}. Split it into smaller calculations.`,
      MAX_EXPRESSION_LENGTH,
    );
  }
  return evaluate(new Parser(source).parse());
}

// ---- Lexer -------------------------------------------------------------------------------------------------------

type Token =
  | { kind: 'number'; text: string; position: number; value: number }
  | { kind: 'name' | 'operator' | 'end'; text: string; position: number };

// Every optional part follows a required one, so none of these can backtrack heavily.
const SPACE = /\s*/y;
const NUMBER = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const OPERATOR = /\*\*|[-+*/%^(),]/y;

/** Reads one token at a time, so errors come out in source order. */
class Lexer {
  #index = 0;
  #count = 0;

  constructor(private readonly source: string) {}

  next(): Token {
    this.#match(SPACE);
    const position = this.#index;
    if (position >= this.source.length) return { kind: 'end', text: '', position };
    if (++this.#count > MAX_TOKENS) {
      throw fail(
        `The expression has more than ${MAX_TOKENS} tokens (numbers, names, operators, parentheses) at position ${position}. Split it into smaller calculations.`,
        position,
      );
    }
    const number = this.#match(NUMBER);
    if (number) {
      const value = Number(number);
      if (!Number.isFinite(value)) {
        throw fail(`The number ${quote(number)} at position ${position} is too large (the limit is about 1.8e308).`, position);
      }
      return { kind: 'number', text: number, position, value };
    }
    const name = this.#match(NAME);
    if (name) return { kind: 'name', text: name, position };
    const operator = this.#match(OPERATOR);
    if (operator) return { kind: 'operator', text: operator, position };
    const character = String.fromCodePoint(this.source.codePointAt(position)!);
    throw fail(
      `Unexpected character ${quote(character)} at position ${position}: only numbers, the operators + - * / % ** ^, parentheses, commas and function or constant names are allowed.`,
      position,
    );
  }

  #match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.#index;
    const match = pattern.exec(this.source);
    if (!match) return undefined;
    this.#index = pattern.lastIndex;
    return match[0];
  }
}

// ---- Parser ------------------------------------------------------------------------------------------------------

type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '**';

type Node =
  | { kind: 'number'; value: number }
  | { kind: 'negate'; operand: Node }
  | { kind: 'binary'; operator: BinaryOperator; left: Node; right: Node; position: number }
  | { kind: 'call'; name: string; spec: FunctionSpec; args: Node[]; position: number };

const OPERAND = 'a number, "(" or a function name';

/**
 * Grammar, loosest first:
 *   sum     = product (("+" | "-") product)*
 *   product = unary (("*" | "/" | "%") unary)*
 *   unary   = ("-" | "+") unary | power
 *   power   = primary (("**" | "^") unary)?      right-associative; binds tighter than a leading sign
 *   primary = number | constant | function "(" sum ("," sum)* ")" | "(" sum ")"
 */
class Parser {
  readonly #lexer: Lexer;
  #token: Token;
  #depth = 0;

  constructor(source: string) {
    this.#lexer = new Lexer(source);
    this.#token = this.#lexer.next();
  }

  parse(): Node {
    if (this.#atEnd()) throw fail('The expression is empty. Write arithmetic such as 2 * (3 + 4).', 0);
    const node = this.#sum();
    if (this.#atEnd()) return node;
    const { position } = this.#token;
    if (this.#is(')')) throw fail(`Unexpected ")" at position ${position}: there is no matching "(".`, position);
    if (this.#is(',')) {
      throw fail(
        `Unexpected "," at position ${position}: commas only separate function arguments; write numbers without thousands separators.`,
        position,
      );
    }
    throw this.#unexpected('an operator (+ - * / % **) or the end of the expression', true);
  }

  #sum(): Node {
    let left = this.#product();
    while (this.#is('+') || this.#is('-')) {
      const { text, position } = this.#advance();
      left = { kind: 'binary', operator: text as BinaryOperator, left, right: this.#product(), position };
    }
    return left;
  }

  #product(): Node {
    let left = this.#unary();
    while (this.#is('*') || this.#is('/') || this.#is('%')) {
      const { text, position } = this.#advance();
      left = { kind: 'binary', operator: text as BinaryOperator, left, right: this.#unary(), position };
    }
    return left;
  }

  #unary(): Node {
    if (!this.#is('-') && !this.#is('+')) return this.#power();
    const sign = this.#advance();
    const operand = this.#nested(sign.position, () => this.#unary());
    return sign.text === '-' ? { kind: 'negate', operand } : operand;
  }

  #power(): Node {
    const base = this.#primary();
    if (!this.#is('**') && !this.#is('^')) return base;
    const { position } = this.#advance();
    // The exponent is a unary, so 2**-1 works and 2**3**2 groups as 2**(3**2).
    const exponent = this.#nested(position, () => this.#unary());
    return { kind: 'binary', operator: '**', left: base, right: exponent, position };
  }

  #primary(): Node {
    const token = this.#token;
    if (token.kind === 'number') {
      this.#advance();
      return { kind: 'number', value: token.value };
    }
    if (token.kind === 'name') return this.#name();
    if (this.#is('(')) {
      this.#advance();
      return this.#nested(token.position, () => {
        const inner = this.#sum();
        this.#close(token.position, 'an operator or ")"');
        return inner;
      });
    }
    throw this.#unexpected(OPERAND);
  }

  #name(): Node {
    // Look the name up before reading on, so "Math.max" reports the unknown name rather than the ".".
    const { text, position } = this.#token;
    const key = text.toLowerCase();
    const constant = CONSTANTS.get(key);
    const spec = FUNCTIONS.get(key);
    if (constant === undefined && !spec) throw fail(`Unknown name ${quote(text)} at position ${position}. ${KNOWN_NAMES}`, position);
    this.#advance();
    if (constant !== undefined) return { kind: 'number', value: constant };
    if (!this.#is('(')) throw this.#unexpected(`"(" after the function name "${key}"`);
    const open = this.#advance();
    const args = this.#nested(open.position, () => {
      const list: Node[] = [];
      if (!this.#is(')')) {
        list.push(this.#sum());
        while (this.#is(',')) {
          this.#advance();
          list.push(this.#sum());
        }
      }
      this.#close(open.position, 'an operator, "," or ")"');
      return list;
    });
    if (args.length < spec!.minArgs || args.length > spec!.maxArgs) {
      throw fail(`${key}() at position ${position} takes ${arity(spec!)}, but got ${args.length}.`, position);
    }
    return { kind: 'call', name: key, spec: spec!, args, position };
  }

  #close(openPosition: number, expected: string): void {
    if (this.#is(')')) {
      this.#advance();
      return;
    }
    if (this.#atEnd()) {
      const { position } = this.#token;
      throw fail(`Missing ")" at position ${position}: the "(" at position ${openPosition} is never closed.`, position);
    }
    throw this.#unexpected(expected, true);
  }

  #nested<T>(position: number, parse: () => T): T {
    if (++this.#depth > MAX_DEPTH) {
      throw fail(
        `The expression nests too deeply at position ${position}: more than ${MAX_DEPTH} levels of parentheses, signs or powers.`,
        position,
      );
    }
    const result = parse();
    this.#depth--;
    return result;
  }

  #is(operator: string): boolean {
    return this.#token.kind === 'operator' && this.#token.text === operator;
  }

  #atEnd(): boolean {
    return this.#token.kind === 'end';
  }

  #advance(): Token {
    const token = this.#token;
    this.#token = this.#lexer.next();
    return token;
  }

  #unexpected(expected: string, afterOperand = false): ToolError {
    const { kind, text, position } = this.#token;
    const found = kind === 'end' ? 'end of input' : quote(text);
    const startsOperand = kind === 'number' || kind === 'name' || this.#is('(');
    const hint = afterOperand && startsOperand ? ' (there is no implicit multiplication; write "*")' : '';
    return fail(`Unexpected ${found} at position ${position}: expected ${expected}${hint}.`, position);
  }
}

// ---- Evaluator ---------------------------------------------------------------------------------------------------

/** Recursion depth is bounded by the token limit (a left-leaning chain of 5,000 tokens is ~2,500 deep). */
function evaluate(node: Node): number {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'negate':
      return -evaluate(node.operand);
    case 'binary': {
      const left = evaluate(node.left);
      const right = evaluate(node.right);
      const { operator, position } = node;
      const dividesByZero = right === 0 ? operator === '/' || operator === '%' : operator === '**' && left === 0 && right < 0;
      const shown = `${show(left)} ${operator} ${show(right)}`;
      if (dividesByZero) throw fail(`Division by zero at position ${position} (${shown}).`, position);
      return finite(applyOperator(operator, left, right), shown, position);
    }
    case 'call': {
      const args = node.args.map(evaluate);
      return finite(node.spec.apply(args, node.position), `${node.name}(${args.map(String).join(', ')})`, node.position);
    }
  }
}

function applyOperator(operator: BinaryOperator, left: number, right: number): number {
  switch (operator) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    case '/':
      return left / right;
    case '%':
      return left % right;
    case '**':
      return left ** right;
  }
}

/** Infinity and NaN are refused rather than returned: a model would carry them on as if they were answers. */
function finite(value: number, what: string, position: number): number {
  if (Number.isFinite(value)) return value;
  const problem = Number.isNaN(value)
    ? 'has no real-number result'
    : 'has no finite result: it is infinite or beyond the largest number, about ±1.8e308';
  throw fail(`${what} at position ${position} ${problem}.`, position);
}

/** Rounds half away from zero (round(-2.5) = -3), to `digits` decimals; negative digits round to tens, hundreds… */
function round(x: number, digits: number, position: number): number {
  if (!Number.isInteger(digits) || Math.abs(digits) > 15) {
    throw fail(`round() at position ${position}: digits must be a whole number from -15 to 15, got ${digits}.`, position);
  }
  const factor = 10 ** Math.abs(digits);
  const scaled = digits >= 0 ? Math.abs(x) * factor : Math.abs(x) / factor;
  // At 2**52 and above a double has no fraction left to round.
  if (scaled >= 2 ** 52) return x;
  // The one-ulp nudge makes 1.005 (stored as 1.00499…) round to 1.01, as a person expects.
  const rounded = Math.round(scaled * (1 + Number.EPSILON));
  return Math.sign(x) * (digits >= 0 ? rounded / factor : rounded * factor);
}

function logBase(x: number, base: number): number {
  // Exact functions for the common bases: Math.log(1000) / Math.log(10) is 2.9999999999999996.
  if (base === 10) return Math.log10(x);
  if (base === 2) return Math.log2(x);
  return Math.log(x) / Math.log(base);
}

function arity({ minArgs, maxArgs }: FunctionSpec): string {
  if (maxArgs === Infinity) return `at least ${minArgs} argument${minArgs === 1 ? '' : 's'}`;
  if (minArgs === maxArgs) return `exactly ${minArgs} argument${minArgs === 1 ? '' : 's'}`;
  return `${minArgs} or ${maxArgs} arguments`;
}

/** Shows an operand in a message; brackets keep (-8) ** 0.5 from reading as -(8 ** 0.5). */
function show(value: number): string {
  return value < 0 ? `(${value})` : String(value);
}

/** Quotes source text for a message, shortened so a 10,000-digit number cannot flood it. */
function quote(text: string): string {
  return JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…` : text);
}

function fail(message: string, position: number): ToolError {
  return new ToolError('INVALID_EXPRESSION', message, { position });
}

import { describe, it, expect } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { evaluateExpression } from '../../../../server/tools/calc/expression.js';

const KNOWN =
  'Known functions: sqrt, abs, round, floor, ceil, min, max, log, log10, log2, exp, sin, cos, tan, asin, acos, atan, pow; constants: pi, e.';

function refusal(source: string): ToolError {
  try {
    evaluateExpression(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error(`${JSON.stringify(source.slice(0, 40))} was evaluated instead of refused`);
}

/** Asserts the refusal's name, its message (exact, or a pattern) and, when given, the reported position. */
function expectRefused(source: string, message: string | RegExp, position?: number): void {
  const error = refusal(source);
  expect(error.errorName).toBe('INVALID_EXPRESSION');
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  if (position !== undefined) expect(error.details).toEqual({ position });
  expect(error.message.length).toBeLessThan(400);
}

describe('evaluateExpression: precedence and associativity', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['10 % 4 * 3', 6],
    ['2 * 3 % 4', 2],
    ['2 * 3 ** 2', 18],
    ['2 ** 3 ** 2', 512],
    ['2 ^ 3 ^ 2', 512],
    ['(2 ** 3) ** 2', 64],
    ['1 + 2 ** 3 * 2', 17],
    ['7 % 3', 1],
    ['5.5 % 2', 1.5],
    [' \t1 +\n 2 ', 3],
  ])('%s = %d', (source, expected) => {
    expect(evaluateExpression(source)).toBe(expected);
  });
});

describe('evaluateExpression: unary signs and powers', () => {
  it.each([
    ['-2 ** 2', -4],
    ['(-2) ** 2', 4],
    ['-2 ^ 2', -4],
    ['2 ** -1', 0.5],
    ['2 ** -2 ** 2', 0.0625],
    ['-2 ** -2', -0.25],
    ['--3', 3],
    ['-+-3', 3],
    ['+3', 3],
    ['1 - -1', 2],
    ['2 * -3', -6],
    ['-3 * -3', 9],
    ['-7 % 3', -1],
    ['-(1 + 2)', -3],
  ])('%s = %d', (source, expected) => {
    expect(evaluateExpression(source)).toBe(expected);
  });
});

describe('evaluateExpression: numbers', () => {
  it.each([
    ['42', 42],
    ['3.25', 3.25],
    ['.5 + .25', 0.75],
    ['3.', 3],
    ['1e3', 1000],
    ['1E+2', 100],
    ['2.5e-3', 0.0025],
    ['1.5e2', 150],
    ['10 ** -400', 0],
  ])('%s = %d', (source, expected) => {
    expect(evaluateExpression(source)).toBe(expected);
  });

  it('returns the IEEE double as is, without hiding float noise', () => {
    expect(evaluateExpression('0.1 + 0.2')).toBe(0.1 + 0.2);
  });
});

describe('evaluateExpression: functions and constants', () => {
  it.each([
    ['sqrt(16)', 4],
    ['abs(-3.5)', 3.5],
    ['round(2.4)', 2],
    ['round(2.5)', 3],
    ['round(-2.5)', -3],
    ['round(3.14159, 2)', 3.14],
    ['round(1.005, 2)', 1.01],
    ['round(1234.5, -2)', 1200],
    ['floor(-1.5)', -2],
    ['ceil(1.2)', 2],
    ['min(3, 1, 2)', 1],
    ['max(4)', 4],
    ['max(1, 2, 3)', 3],
    ['log(e)', 1],
    ['log(8, 2)', 3],
    ['log(1000, 10)', 3],
    ['log10(1000)', 3],
    ['log2(1024)', 10],
    ['exp(0)', 1],
    ['sin(0)', 0],
    ['cos(0)', 1],
    ['tan(0)', 0],
    ['asin(1)', Math.PI / 2],
    ['acos(1)', 0],
    ['atan(1)', Math.PI / 4],
    ['pow(2, 10)', 1024],
    ['max(1, min(5, 3), sqrt(4))', 3],
    ['SQRT(9)', 3],
    ['pi', Math.PI],
    ['PI', Math.PI],
    ['e', Math.E],
    ['E', Math.E],
    ['2 * pi', 2 * Math.PI],
    ['e ** 2', Math.E ** 2],
  ])('%s = %d', (source, expected) => {
    expect(evaluateExpression(source)).toBe(expected);
  });
});

describe('evaluateExpression: syntax errors', () => {
  it('refuses empty input', () => {
    expectRefused('', 'The expression is empty. Write arithmetic such as 2 * (3 + 4).', 0);
  });

  it('refuses input that is only whitespace', () => {
    expectRefused('  \n ', /^The expression is empty/, 0);
  });

  it('refuses a trailing operator', () => {
    expectRefused('1 +', 'Unexpected end of input at position 3: expected a number, "(" or a function name.', 3);
  });

  it('refuses a leading binary operator', () => {
    expectRefused('* 2', 'Unexpected "*" at position 0: expected a number, "(" or a function name.', 0);
  });

  it('refuses an operator with no right operand before ")"', () => {
    expectRefused('1 + )', 'Unexpected ")" at position 4: expected a number, "(" or a function name.', 4);
  });

  it('refuses empty parentheses', () => {
    expectRefused('()', 'Unexpected ")" at position 1: expected a number, "(" or a function name.', 1);
  });

  it('refuses an unclosed "(" and names where it opened', () => {
    expectRefused('(1 + 2', 'Missing ")" at position 6: the "(" at position 0 is never closed.', 6);
  });

  it('refuses an unclosed function call', () => {
    expectRefused('sqrt(4', 'Missing ")" at position 6: the "(" at position 4 is never closed.', 6);
  });

  it('refuses a ")" with no matching "("', () => {
    expectRefused('1 + 2)', 'Unexpected ")" at position 5: there is no matching "(".', 5);
  });

  it('refuses implicit multiplication and says to write "*"', () => {
    expectRefused(
      '2pi',
      'Unexpected "pi" at position 1: expected an operator (+ - * / % **) or the end of the expression (there is no implicit multiplication; write "*").',
      1,
    );
    expectRefused('2(3)', /^Unexpected "\(" at position 1: .*write "\*"/, 1);
    expectRefused('(1(2))', /^Unexpected "\(" at position 2: expected an operator or "\)" .*write "\*"/, 2);
  });

  it('refuses thousands separators', () => {
    expectRefused('1,000', /^Unexpected "," at position 1: commas only separate function arguments/, 1);
  });

  it('refuses a function name without "("', () => {
    expectRefused('sqrt', 'Unexpected end of input at position 4: expected "(" after the function name "sqrt".', 4);
    expectRefused('sqrt 4', /^Unexpected "4" at position 5: expected "\(" after the function name "sqrt"/, 5);
  });

  it('refuses a missing argument after ","', () => {
    expectRefused('max(1,)', 'Unexpected ")" at position 6: expected a number, "(" or a function name.', 6);
  });

  it('refuses "2e" rather than reading it as 2 * e', () => {
    expectRefused('2e', /^Unexpected "e" at position 1: expected an operator/, 1);
  });

  it('refuses hex literals', () => {
    expectRefused('0x10', /^Unexpected "x10" at position 1/, 1);
  });
});

describe('evaluateExpression: unknown names and arity', () => {
  it('refuses an unknown name and lists the known ones', () => {
    expectRefused('foo', `Unknown name "foo" at position 0. ${KNOWN}`, 0);
  });

  it('reports an unknown name in the middle of an expression at its own position', () => {
    expectRefused('2 + x * 3', `Unknown name "x" at position 4. ${KNOWN}`, 4);
  });

  it('refuses too few arguments', () => {
    expectRefused('sqrt()', 'sqrt() at position 0 takes exactly 1 argument, but got 0.', 0);
    expectRefused('pow(2)', 'pow() at position 0 takes exactly 2 arguments, but got 1.', 0);
    expectRefused('max()', 'max() at position 0 takes at least 1 argument, but got 0.', 0);
  });

  it('refuses too many arguments', () => {
    expectRefused('sqrt(1, 2)', 'sqrt() at position 0 takes exactly 1 argument, but got 2.', 0);
    expectRefused('1 + round(1, 2, 3)', 'round() at position 4 takes 1 or 2 arguments, but got 3.', 4);
    expectRefused('log(1, 2, 3)', 'log() at position 0 takes 1 or 2 arguments, but got 3.', 0);
  });

  it('refuses round() digits that are not a whole number from -15 to 15', () => {
    expectRefused('round(1.5, 0.5)', /^round\(\) at position 0: digits must be a whole number from -15 to 15, got 0.5\.$/, 0);
    expectRefused('round(1.5, 16)', /digits must be a whole number from -15 to 15, got 16\.$/, 0);
  });
});

describe('evaluateExpression: results that are not finite numbers', () => {
  it('refuses division by zero', () => {
    expectRefused('1 / 0', 'Division by zero at position 2 (1 / 0).', 2);
  });

  it('refuses 0 / 0 as division by zero rather than returning NaN', () => {
    expectRefused('0 / 0', 'Division by zero at position 2 (0 / 0).', 2);
  });

  it('refuses a zero divisor computed at run time', () => {
    expectRefused('1 / (2 - 2)', /^Division by zero at position 2/, 2);
  });

  it('refuses remainder by zero', () => {
    expectRefused('5 % 0', 'Division by zero at position 2 (5 % 0).', 2);
  });

  it('refuses zero to a negative power', () => {
    expectRefused('0 ** -1', 'Division by zero at position 2 (0 ** (-1)).', 2);
  });

  it('refuses sqrt of a negative number', () => {
    expectRefused('sqrt(-1)', 'sqrt(-1) at position 0 has no real-number result.', 0);
  });

  it('refuses a negative base to a fractional power', () => {
    expectRefused('(-8) ** (1/3)', /^\(-8\) \*\* 0\.333\d+ at position 5 has no real-number result\.$/, 5);
  });

  it('refuses asin outside [-1, 1] and log of a negative number', () => {
    expectRefused('asin(2)', /^asin\(2\) at position 0 has no real-number result/, 0);
    expectRefused('log(-1)', /^log\(-1\) at position 0 has no real-number result/, 0);
  });

  it('refuses log(0), which is -Infinity', () => {
    expectRefused('log(0)', /^log\(0\) at position 0 has no finite result/, 0);
  });

  it('refuses log with base 1', () => {
    expectRefused('log(8, 1)', /^log\(8, 1\) at position 0 has no finite result/, 0);
  });

  it('refuses 9**9**9 as an overflow instead of returning Infinity', () => {
    expectRefused('9**9**9', /^9 \*\* 387420489 at position 1 has no finite result: .*1\.8e308\.$/, 1);
  });

  it('refuses 10**400 as an overflow', () => {
    expectRefused('10**400', /^10 \*\* 400 at position 2 has no finite result/, 2);
  });

  it('refuses overflow from multiplication, division, pow() and exp()', () => {
    expectRefused('1e308 * 10', /^1e\+308 \* 10 at position 6 has no finite result/, 6);
    expectRefused('1e308 / 1e-10', /at position 6 has no finite result/, 6);
    expectRefused('pow(10, 400)', /^pow\(10, 400\) at position 0 has no finite result/, 0);
    expectRefused('exp(1000)', /^exp\(1000\) at position 0 has no finite result/, 0);
  });

  it('refuses a number literal too large to represent', () => {
    expectRefused('1 + 1e400', 'The number "1e400" at position 4 is too large (the limit is about 1.8e308).', 4);
  });
});

describe('evaluateExpression: hostile input is refused within bounds', () => {
  it('refuses 100,000 characters of "(" by length before parsing', () => {
    expectRefused('('.repeat(100_000), 'The expression is 100000 characters long; the limit is 10000. Split it into smaller calculations.', 10_000);
  });

  it('refuses 10,001 characters and accepts exactly 10,000', () => {
    expectRefused('1' + ' '.repeat(10_000), /^The expression is 10001 characters long/, 10_000);
    expect(evaluateExpression('1' + ' '.repeat(9_999))).toBe(1);
  });

  it('refuses 10,000 nested parentheses at the 101st level', () => {
    expectRefused('('.repeat(10_000), /^The expression nests too deeply at position 100: more than 100 levels/, 100);
  });

  it('accepts 100 nested parentheses and refuses 101', () => {
    expect(evaluateExpression('('.repeat(100) + '1' + ')'.repeat(100))).toBe(1);
    expectRefused('('.repeat(101) + '1' + ')'.repeat(101), /nests too deeply at position 100/, 100);
  });

  it('refuses 50,000 unary minuses by length', () => {
    expectRefused('-'.repeat(50_000) + '1', /^The expression is 50001 characters long/, 10_000);
  });

  it('refuses 5,000 unary minuses by depth', () => {
    expectRefused('-'.repeat(5_000) + '1', /nests too deeply at position 100/, 100);
    expect(evaluateExpression('-'.repeat(100) + '1')).toBe(1);
  });

  it('refuses a long chain of powers by depth', () => {
    expectRefused('2**'.repeat(3_000) + '2', /nests too deeply at position 301/, 301);
  });

  it('refuses deeply nested function calls by depth', () => {
    expectRefused('sqrt('.repeat(2_000), /nests too deeply at position 504/, 504);
  });

  it('refuses "1+" repeated 50,000 times by length', () => {
    expectRefused('1+'.repeat(50_000), /^The expression is 100000 characters long/, 10_000);
  });

  it('refuses more than 5,000 tokens and accepts 4,999', () => {
    expectRefused('1+'.repeat(2_500) + '1', /^The expression has more than 5000 tokens .* at position 5000\./, 5000);
    expect(evaluateExpression('1+'.repeat(2_499) + '1')).toBe(2_500);
  });

  it('refuses a 10,000-digit number without echoing it back', () => {
    expectRefused('9'.repeat(10_000), /^The number "9{24}…" at position 0 is too large/, 0);
  });

  it('refuses a 10,000-character name without echoing it back', () => {
    expectRefused('a'.repeat(10_000), /^Unknown name "a{24}…" at position 0\./, 0);
  });
});

describe('evaluateExpression: no code execution', () => {
  it.each([
    ['constructor', 'constructor'],
    ['__proto__', '__proto__'],
    ['this', 'this'],
    ['globalThis', 'globalThis'],
    ['process.exit()', 'process'],
    ['Math.max(1)', 'Math'],
    ['a=1', 'a'],
    ['toString()', 'toString'],
    ['hasOwnProperty(1)', 'hasOwnProperty'],
    ['import("fs")', 'import'],
    ['require("fs")', 'require'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
  ])('refuses %s as an unknown name', (source, name) => {
    expectRefused(source, `Unknown name "${name}" at position 0. ${KNOWN}`, 0);
  });

  it.each([
    ['1;2', ';', 1],
    ['1=1', '=', 1],
    ['`1`', '`', 0],
    ['"1"', '"', 0],
    ["'1'", "'", 0],
    ['[1]', '[', 0],
    ['{}', '{', 0],
    ['!1', '!', 0],
    ['1 && 2', '&', 2],
    ['1 ? 2 : 3', '?', 2],
    ['sqrt.constructor', '.', 4],
    ['${1}', '$', 0],
  ])('refuses %s at the unexpected character', (source, character, position) => {
    expectRefused(
      source,
      `Unexpected character ${JSON.stringify(character)} at position ${position}: only numbers, the operators + - * / % ** ^, parentheses, commas and function or constant names are allowed.`,
      position,
    );
  });
});

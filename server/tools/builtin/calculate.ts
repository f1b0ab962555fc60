import { defineTool } from '../types.js';
import { evaluateExpression, MAX_EXPRESSION_LENGTH } from '../calc/expression.js';

export const calculateTool = defineTool<{ expression: string }, { expression: string; result: number }>({
  name: 'calculate',
  description: [
    'Evaluate an arithmetic expression and return its numeric result (a 64-bit float, not rounded).',
    'Use it rather than doing arithmetic in your head.',
    'Numbers: 12, 3.5, .5, 1e3. Operators: + - * / % (remainder), ** or ^ (power; right-associative and tighter',
    'than a leading minus, so -2**2 = -4 and 2**3**2 = 512), parentheses.',
    'Functions: sqrt, abs, round(x, digits?) (half away from zero), floor, ceil, min(a, ...), max(a, ...),',
    'log(x, base?) (natural unless a base is given), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians),',
    'pow(x, y). Constants: pi, e.',
    'There are no variables, assignments or implicit multiplication: write 2*pi, not 2pi.',
    'Division by zero, overflow and results that are not real numbers are errors; every error names the',
    '0-based character position of the problem and what was expected there.',
  ].join(' '),
  parameters: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        description: 'The arithmetic expression, for example "(1 + 2) * sqrt(16) / 3" or "round(100 * 1.075 ** 10, 2)".',
        maxLength: MAX_EXPRESSION_LENGTH,
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { expression: { type: 'string' }, result: { type: 'number' } }, required: ['expression', 'result'] },
  category: 'math',
  risk: 'safe',
  annotations: {
    title: 'Calculator',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  timeoutMs: 1000,
  handler: ({ expression }) => ({ expression, result: evaluateExpression(expression) }),
});

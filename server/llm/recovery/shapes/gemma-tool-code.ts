// Gemma (the function-calling format Google documents for Gemma): calls as code in a tool_code fence,
//   ```tool_code
//   get_time(timezone="UTC")
//   ```
// one call per line, or wrapped in print(...) (unwrapped here). A ```python fence is code to show, not a call.
import { findFences } from './fences.js';
import { readPythonCallBody } from './python-calls.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

export const gemmaToolCode: ShapeParser = {
  shape: 'gemma-tool-code',
  find(text) {
    if (!text.includes('tool_code')) return [];
    const matches: ShapeMatch[] = [];
    for (const fence of findFences(text)) {
      if (fence.lang !== 'tool_code') continue;
      const calls = readPythonCallBody(fence.body, true);
      if (calls) matches.push({ start: fence.start, end: fence.end, calls: calls.map((c) => writtenCall(c.name, c.arguments, 'gemma-tool-code')) });
    }
    return matches;
  },
};

// Any model: a call as JSON in a code fence (tagged json, or untagged),
//   ```json
//   {"name": "get_time", "arguments": {"timezone": "UTC"}}
//   ```
// "parameters" also seen, and a JSON list of such objects; a fence tagged tool_call / tool_calls holds the same.
// An object counts only with an "arguments"/"parameters" key or no keys but name/type/id, so a fenced example such
// as {"name": "Alice", "age": 3} stays text.
import { findFences } from './fences.js';
import { readJsonCalls } from './json-call.js';
import { scanBalanced } from './json-scan.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

/** The tags a fence holding a JSON call is written with (the stream gate holds these fences: stream-gate.ts). */
export const JSON_FENCE_TAGS = new Set(['', 'json', 'jsonc', 'json5', 'tool_call', 'tool_calls']);

export const fencedJson: ShapeParser = {
  shape: 'fenced-json',
  find(text) {
    const matches: ShapeMatch[] = [];
    for (const fence of findFences(text)) {
      const body = fence.body.trim();
      if (!JSON_FENCE_TAGS.has(fence.lang) || scanBalanced(body, 0) !== body.length) continue;
      const calls = readJsonCalls(body);
      if (!calls || !calls.every((c) => c.hasArguments || c.onlyCallKeys)) continue;
      matches.push({ start: fence.start, end: fence.end, calls: calls.map((c) => writtenCall(c.name, c.arguments, 'fenced-json')) });
    }
    return matches;
  },
};

import { jsonParseTool } from '/work/main/server/tools/builtin/json-parse.js';
import { textProcessTool } from '/work/main/server/tools/builtin/text-process.js';
import { describeInstant, getTimeTool } from '/work/main/server/tools/builtin/get-time.js';
const ctx = { signal: new AbortController().signal, callId: 'c', client: 't' };
const tryit = async (f: () => unknown) => { try { console.log(JSON.stringify(await f())); } catch (e: any) { console.log('ERR', e.errorName, e.message, JSON.stringify(e.details)); } };
for (const t of ['{"a":}', '{"a":1', '[1,]', "{'a':1}", '01', '{"a":1} x', '"a\tb"', '{\n  "a": 1,\n  "b": [1, 2,,]\n}', '{"a":1,}', '', '[1 2]', '{"a" 1}', '"\\x"', '"abc', '-', '1.', 'tru', '// c\n1', '{"__proto__": {"x":1}}'])
  await tryit(() => jsonParseTool.handler({ text: t }, ctx));
const doc = JSON.stringify({ users: [{ name: 'Ann' }, { name: 'Bo' }], a: { b: { 'key with space': 1 } }, items: [1, 2, 3], s: 'x' });
for (const p of ['users[0].name', 'users[3]', 'users[-1].name', 'users[-3]', 'a.b["key with space"]', "a.b['key with space']", '$', '', '$.items[-1]', 'users.name', 'constructor', 'a.__proto__', 's.length', 'items.length', 'a.b.c', 'users[0', 'a..b', 'a[x]', 'users.1.name', '[0]', 'toString'])
  await tryit(() => jsonParseTool.handler({ text: doc, path: p }, ctx));
await tryit(() => jsonParseTool.handler({ text: '['.repeat(5000) + ']'.repeat(5000) }, ctx));
await tryit(() => jsonParseTool.handler({ text: '['.repeat(100000) + ']'.repeat(99999) }, ctx));
for (const op of ['uppercase','lowercase','trim','lines','words','count'] as const) await tryit(() => textProcessTool.handler({ text: ' Héllo wörld 👍🏽\n我爱北京天安门。\n', operation: op }, ctx));
await tryit(() => textProcessTool.handler({ text: 'a.b.c', operation: 'replace', pattern: '.', replacement: '$&-' }, ctx));
await tryit(() => textProcessTool.handler({ text: 'a1b22c333', operation: 'replace', pattern: '(\\d+)', replacement: '<$1>', regex: true }, ctx));
await tryit(() => textProcessTool.handler({ text: 'a1b22c333', operation: 'match', pattern: '(?<d>\\d)(x)?' }, ctx));
let t0 = Date.now();
await tryit(() => textProcessTool.handler({ text: 'a'.repeat(30) + 'b', operation: 'match', pattern: '(a+)+$' }, ctx));
console.log(Date.now() - t0);
await tryit(() => textProcessTool.handler({ text: 'a', operation: 'match', pattern: '(' }, ctx));
await tryit(() => textProcessTool.handler({ text: 'a', operation: 'match', pattern: 'a', flags: 'gx' }, ctx));
await tryit(() => textProcessTool.handler({ text: 'a'.repeat(1000), operation: 'replace', pattern: 'a', replacement: 'b'.repeat(10000) }, ctx));
await tryit(() => textProcessTool.handler({ text: 'a'.repeat(1000), operation: 'replace', regex: true, pattern: 'a', replacement: 'b'.repeat(10000) + '$&' }, ctx));
t0 = Date.now();
await tryit(async () => { const r: any = await textProcessTool.handler({ text: 'a'.repeat(1_000_000), operation: 'match', pattern: 'a' }, ctx); return [r.count, r.truncated]; });
await tryit(async () => { const r: any = await textProcessTool.handler({ text: 'ab '.repeat(300_000), operation: 'replace', regex: true, pattern: 'a(b)', replacement: '$1' }, ctx); return [r.replacements, r.result.length]; });
await tryit(async () => { const r: any = await textProcessTool.handler({ text: 'ab '.repeat(300_000), operation: 'count' }, ctx); return r; });
console.log(Date.now() - t0);
for (const z of ['Asia/Kolkata', 'Asia/Kathmandu', 'America/New_York', 'Australia/Lord_Howe', 'utc', 'Mars/Base', 'America/St_Johns'])
  await tryit(() => describeInstant(new Date('2026-07-15T12:00:00.123Z'), z));
await tryit(() => describeInstant(new Date('2026-01-15T12:00:00Z'), 'Australia/Lord_Howe'));
await tryit(() => describeInstant(new Date('1800-01-15T12:00:00Z'), 'Europe/London'));
await tryit(() => getTimeTool.handler({}, ctx));

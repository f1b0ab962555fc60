/**
 * A corpus of replies in which small local models write tool calls as TEXT, each in its family's own markup as the
 * family's published chat template (or model card) renders an assistant turn with tool calls, written for these
 * tests: Hermes 2 Pro / Hermes 3 / Qwen2.5 / Qwen3, Qwen3-Coder, GLM-4.5, Llama 3.1 / 3.2 / 3.3 / 4, LFM2, Mistral
 * (v3, Nemo, v11+), DeepSeek V3 / R1 / V3.1, Gemma, and the shapes any model drifts into (a fenced JSON call, the
 * OpenAI wire format echoed as text). Each reply comes with the calls it means; the negatives are replies that only
 * look like calls and must reach the user as they are, running nothing.
 *
 * The tools are the gateway's own safe, deterministic built-ins: calculate {expression}, get_time {timezone?},
 * text_process {text, operation, pattern?, replacement?, regex?, flags?}, json_parse {text, path?}; `lookup_order`
 * {order_id} is a tool a proxy's CLIENT defines.
 */

const FENCE = '```';

export interface IntendedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The name as the reply writes it, when it is not the offered name (`functions.calculate`, `getTime`). */
  written?: string;
}

export interface PositiveReply {
  /** `<family>/<what>`, shown in failures. */
  id: string;
  family: string;
  /** The shape the history should record (`recovery.shape`). */
  shape: string;
  text: string;
  calls: IntendedCall[];
  /** Prose the user must see (the reply minus its markup). */
  prose?: string[];
  /** Reasoning that must go to the reasoning channel, not the answer. */
  reasoning?: string;
  /** The arguments as written need mending (the history lists `recovery.repairs`). */
  repaired?: boolean;
}

export interface NegativeReply {
  id: string;
  /** Why it must stay text. */
  why: string;
  text: string;
  /** The tool switched off (PATCH /tools/{name} as owner) while this reply is replayed. */
  disable?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Hermes 2 Pro / Hermes 3 / Qwen2.5 / Qwen3: one <tool_call> block per call, the JSON on its own line.
// ---------------------------------------------------------------------------------------------------------------
const hermes: PositiveReply[] = [
  {
    id: 'hermes/one-call',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>',
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } }],
  },
  {
    id: 'hermes/arguments-first (Hermes 2 Pro key order)',
    family: 'hermes-2-pro',
    shape: 'hermes',
    text: '<tool_call>\n{"arguments": {"expression": "1234 * 5678"}, "name": "calculate"}\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '1234 * 5678' } }],
  },
  {
    id: 'hermes/two-calls',
    family: 'qwen2.5',
    shape: 'hermes',
    text:
      '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "calculate", "arguments": {"expression": "365 * 24"}}\n</tool_call>',
    calls: [
      { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
      { name: 'calculate', arguments: { expression: '365 * 24' } },
    ],
  },
  {
    id: 'hermes/prose-around',
    family: 'hermes-3',
    shape: 'hermes',
    text:
      'Sure, let me shout that for you.\n<tool_call>\n{"name": "text_process", "arguments": {"text": "hello pincer", "operation": "uppercase"}}\n</tool_call>\n' +
      'One moment while it runs.',
    calls: [{ name: 'text_process', arguments: { text: 'hello pincer', operation: 'uppercase' } }],
    prose: ['Sure, let me shout that for you.', 'One moment while it runs.'],
  },
  {
    id: 'hermes/trailing-commas',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "calculate", "arguments": {"expression": "2 ** 10",},}\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '2 ** 10' } }],
    repaired: true,
  },
  {
    id: 'hermes/single-quotes',
    family: 'hermes-3',
    shape: 'hermes',
    text: "<tool_call>\n{'name': 'get_time', 'arguments': {'timezone': 'America/Chicago'}}\n</tool_call>",
    calls: [{ name: 'get_time', arguments: { timezone: 'America/Chicago' } }],
    repaired: true,
  },
  {
    // The call object lacks its closing brace; the arguments inside it are whole.
    id: 'hermes/missing-closing-brace',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "calculate", "arguments": {"expression": "6 * 7"}\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }],
  },
  {
    id: 'hermes/double-encoded-arguments',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "calculate", "arguments": "{\\"expression\\": \\"10 / 4\\"}"}\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '10 / 4' } }],
  },
  {
    id: 'hermes/functions-prefix',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "functions.calculate", "arguments": {"expression": "2 ** 16"}}\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '2 ** 16' }, written: 'functions.calculate' }],
  },
  {
    id: 'hermes/qwen3-thinking-first',
    family: 'qwen3',
    shape: 'hermes',
    text:
      '<think>\nThe user wants to know what weekday it is in UTC. I should not guess; get_time gives the weekday.\n</think>\n\n' +
      '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>',
    calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }],
    reasoning: 'I should not guess; get_time gives the weekday.',
  },
  {
    id: 'hermes/json-text-argument',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "json_parse", "arguments": {"text": "{\\"users\\": [{\\"name\\": \\"Ada\\"}]}", "path": "users[0].name"}}\n</tool_call>',
    calls: [{ name: 'json_parse', arguments: { text: '{"users": [{"name": "Ada"}]}', path: 'users[0].name' } }],
  },
  {
    id: 'hermes/arguments-wrapped-twice',
    family: 'hermes-3',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "calculate", "arguments": {"arguments": {"expression": "(2 + 3) * 4"}}}\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '(2 + 3) * 4' } }],
    repaired: true,
  },
  {
    id: 'hermes/boolean-as-string',
    family: 'qwen2.5',
    shape: 'hermes',
    text:
      '<tool_call>\n{"name": "text_process", "arguments": {"text": "a1b22c333", "operation": "replace", "pattern": "[0-9]+", "replacement": "#", "regex": "true"}}\n</tool_call>',
    calls: [{ name: 'text_process', arguments: { text: 'a1b22c333', operation: 'replace', pattern: '[0-9]+', replacement: '#', regex: true } }],
    repaired: true,
  },
  {
    id: 'hermes/cut-before-closing-tag',
    family: 'qwen2.5',
    shape: 'hermes',
    text: '<tool_call>\n{"name": "calculate", "arguments": {"expression": "99 - 1"}}',
    calls: [{ name: 'calculate', arguments: { expression: '99 - 1' } }],
  },
  {
    id: 'hermes/no-arguments',
    family: 'hermes-3',
    shape: 'hermes',
    text: 'Checking the clock.\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>',
    calls: [{ name: 'get_time', arguments: {} }],
    prose: ['Checking the clock.'],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Qwen3-Coder: <tool_call><function=NAME><parameter=K>\nV\n</parameter></function></tool_call>, values raw text,
// non-strings as JSON.
// ---------------------------------------------------------------------------------------------------------------
const qwen3Coder: PositiveReply[] = [
  {
    id: 'qwen3-coder/one-call',
    family: 'qwen3-coder',
    shape: 'qwen3-coder',
    text: '<tool_call>\n<function=get_time>\n<parameter=timezone>\nAmerica/New_York\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'get_time', arguments: { timezone: 'America/New_York' } }],
  },
  {
    id: 'qwen3-coder/two-calls',
    family: 'qwen3-coder',
    shape: 'qwen3-coder',
    text:
      '<tool_call>\n<function=calculate>\n<parameter=expression>\n(7 + 8) * 2\n</parameter>\n</function>\n</tool_call>\n' +
      '<tool_call>\n<function=text_process>\n<parameter=text>\nPincer\n</parameter>\n<parameter=operation>\nlowercase\n</parameter>\n</function>\n</tool_call>',
    calls: [
      { name: 'calculate', arguments: { expression: '(7 + 8) * 2' } },
      { name: 'text_process', arguments: { text: 'Pincer', operation: 'lowercase' } },
    ],
  },
  {
    id: 'qwen3-coder/multi-line-value',
    family: 'qwen3-coder',
    shape: 'qwen3-coder',
    text:
      '<tool_call>\n<function=text_process>\n<parameter=text>\nfirst line\nsecond line\nthird line\n</parameter>\n<parameter=operation>\nlines\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'text_process', arguments: { text: 'first line\nsecond line\nthird line', operation: 'lines' } }],
  },
  {
    id: 'qwen3-coder/boolean-parameter',
    family: 'qwen3-coder',
    shape: 'qwen3-coder',
    text:
      '<tool_call>\n<function=text_process>\n<parameter=text>\nx-1 y-22\n</parameter>\n<parameter=operation>\nreplace\n</parameter>\n' +
      '<parameter=pattern>\n-\\d+\n</parameter>\n<parameter=replacement>\n!\n</parameter>\n<parameter=regex>\ntrue\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'text_process', arguments: { text: 'x-1 y-22', operation: 'replace', pattern: '-\\d+', replacement: '!', regex: true } }],
    repaired: true,
  },
  {
    id: 'qwen3-coder/prose-before',
    family: 'qwen3-coder',
    shape: 'qwen3-coder',
    text: "I'll work that out with the calculator.\n\n<tool_call>\n<function=calculate>\n<parameter=expression>\nsqrt(2) * sqrt(8)\n</parameter>\n</function>\n</tool_call>",
    calls: [{ name: 'calculate', arguments: { expression: 'sqrt(2) * sqrt(8)' } }],
    prose: ["I'll work that out with the calculator."],
  },
  {
    // The template writes a string parameter raw: JSON text passed to a string parameter is still a string.
    id: 'qwen3-coder/json-text-in-string-parameter',
    family: 'qwen3-coder',
    shape: 'qwen3-coder',
    text:
      '<tool_call>\n<function=json_parse>\n<parameter=text>\n{"order": {"items": [3, 5, 8]}}\n</parameter>\n<parameter=path>\norder.items[-1]\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'json_parse', arguments: { text: '{"order": {"items": [3, 5, 8]}}', path: 'order.items[-1]' } }],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// GLM-4.5 / 4.6: <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>.
// ---------------------------------------------------------------------------------------------------------------
const glm: PositiveReply[] = [
  {
    id: 'glm/one-call',
    family: 'glm-4.5',
    shape: 'glm',
    text: '<tool_call>get_time\n<arg_key>timezone</arg_key>\n<arg_value>Asia/Shanghai</arg_value>\n</tool_call>',
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Shanghai' } }],
  },
  {
    id: 'glm/two-calls',
    family: 'glm-4.5',
    shape: 'glm',
    text:
      '<tool_call>calculate\n<arg_key>expression</arg_key>\n<arg_value>1000 * 1.05 ** 3</arg_value>\n</tool_call>' +
      '<tool_call>get_time\n<arg_key>timezone</arg_key>\n<arg_value>Europe/Rome</arg_value>\n</tool_call>',
    calls: [
      { name: 'calculate', arguments: { expression: '1000 * 1.05 ** 3' } },
      { name: 'get_time', arguments: { timezone: 'Europe/Rome' } },
    ],
  },
  {
    id: 'glm/thinking-first',
    family: 'glm-4.6',
    shape: 'glm',
    text: '<think>Fifteen percent of eighty: better to compute it exactly.</think>\n<tool_call>calculate\n<arg_key>expression</arg_key>\n<arg_value>0.15 * 80</arg_value>\n</tool_call>',
    calls: [{ name: 'calculate', arguments: { expression: '0.15 * 80' } }],
    reasoning: 'Fifteen percent of eighty',
  },
  {
    id: 'glm/json-boolean-value',
    family: 'glm-4.5',
    shape: 'glm',
    text:
      '<tool_call>text_process\n<arg_key>text</arg_key>\n<arg_value>Tea, Coffee; Juice</arg_value>\n<arg_key>operation</arg_key>\n<arg_value>replace</arg_value>\n' +
      '<arg_key>pattern</arg_key>\n<arg_value>[,;]</arg_value>\n<arg_key>replacement</arg_key>\n<arg_value> |</arg_value>\n<arg_key>regex</arg_key>\n<arg_value>true</arg_value>\n</tool_call>',
    calls: [{ name: 'text_process', arguments: { text: 'Tea, Coffee; Juice', operation: 'replace', pattern: '[,;]', replacement: ' |', regex: true } }],
    repaired: true,
  },
  {
    id: 'glm/prose-before',
    family: 'glm-4.5',
    shape: 'glm',
    text: 'Let me count the words.\n<tool_call>text_process\n<arg_key>text</arg_key>\n<arg_value>the quick brown fox</arg_value>\n<arg_key>operation</arg_key>\n<arg_value>words</arg_value>\n</tool_call>',
    calls: [{ name: 'text_process', arguments: { text: 'the quick brown fox', operation: 'words' } }],
    prose: ['Let me count the words.'],
  },
  {
    // The template writes strings raw (only non-strings as JSON): JSON text for a string parameter stays a string.
    id: 'glm/json-text-in-string-value',
    family: 'glm-4.5',
    shape: 'glm',
    text: '<tool_call>json_parse\n<arg_key>text</arg_key>\n<arg_value>{"a": {"b": 7}}</arg_value>\n<arg_key>path</arg_key>\n<arg_value>a.b</arg_value>\n</tool_call>',
    calls: [{ name: 'json_parse', arguments: { text: '{"a": {"b": 7}}', path: 'a.b' } }],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Llama 3.1 / 3.2 / 3.3 JSON tool calling: {"name": …, "parameters": {…}} as the reply.
// ---------------------------------------------------------------------------------------------------------------
const llamaJson: PositiveReply[] = [
  {
    id: 'llama-json/one-call',
    family: 'llama-3.1',
    shape: 'llama-json',
    text: '{"name": "calculate", "parameters": {"expression": "12 * 12"}}',
    calls: [{ name: 'calculate', arguments: { expression: '12 * 12' } }],
  },
  {
    id: 'llama-json/type-function',
    family: 'llama-3.2',
    shape: 'llama-json',
    text: '{"type": "function", "name": "get_time", "parameters": {"timezone": "Australia/Sydney"}}',
    calls: [{ name: 'get_time', arguments: { timezone: 'Australia/Sydney' } }],
  },
  {
    id: 'llama-json/two-calls-semicolon',
    family: 'llama-3.3',
    shape: 'llama-json',
    text: '{"name": "calculate", "parameters": {"expression": "7 * 6"}}; {"name": "get_time", "parameters": {"timezone": "Europe/Lisbon"}}',
    calls: [
      { name: 'calculate', arguments: { expression: '7 * 6' } },
      { name: 'get_time', arguments: { timezone: 'Europe/Lisbon' } },
    ],
  },
  {
    id: 'llama-json/two-calls-on-lines',
    family: 'llama-3.1',
    shape: 'llama-json',
    text: '{"name": "text_process", "parameters": {"text": "Llama", "operation": "uppercase"}}\n{"name": "calculate", "parameters": {"expression": "100 - 58"}}',
    calls: [
      { name: 'text_process', arguments: { text: 'Llama', operation: 'uppercase' } },
      { name: 'calculate', arguments: { expression: '100 - 58' } },
    ],
  },
  {
    id: 'llama-json/prose-before',
    family: 'llama-3.1',
    shape: 'llama-json',
    text: 'I will compute it with the calculator.\n{"name": "calculate", "parameters": {"expression": "17 * 3"}}',
    calls: [{ name: 'calculate', arguments: { expression: '17 * 3' } }],
    prose: ['I will compute it with the calculator.'],
  },
  {
    id: 'llama-json/python-constants',
    family: 'llama-3.2',
    shape: 'llama-json',
    text: '{"name": "text_process", "parameters": {"text": "a,b,c", "operation": "replace", "pattern": ",", "replacement": ";", "regex": False}}',
    calls: [{ name: 'text_process', arguments: { text: 'a,b,c', operation: 'replace', pattern: ',', replacement: ';', regex: false } }],
    repaired: true,
  },
  {
    id: 'llama-json/functions-prefix',
    family: 'llama-3.2',
    shape: 'llama-json',
    text: '{"name": "functions.get_time", "parameters": {"timezone": "UTC"}}',
    calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, written: 'functions.get_time' }],
  },
  {
    id: 'llama-json/stringified-parameters',
    family: 'llama-3.1',
    shape: 'llama-json',
    text: '{"name": "calculate", "parameters": "{\\"expression\\": \\"3 ** 4\\"}"}',
    calls: [{ name: 'calculate', arguments: { expression: '3 ** 4' } }],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Llama 3.1: <|python_tag|>{…}<|eom_id|>, and the custom <function=NAME>{json}</function> format.
// ---------------------------------------------------------------------------------------------------------------
const llamaTags: PositiveReply[] = [
  {
    id: 'llama-python-tag/json-with-eom',
    family: 'llama-3.1',
    shape: 'llama-python-tag',
    text: '<|python_tag|>{"name": "get_time", "parameters": {"timezone": "Europe/Berlin"}}<|eom_id|>',
    calls: [{ name: 'get_time', arguments: { timezone: 'Europe/Berlin' } }],
  },
  {
    id: 'llama-python-tag/json-no-end-token',
    family: 'llama-3.1',
    shape: 'llama-python-tag',
    text: '<|python_tag|>{"name": "calculate", "parameters": {"expression": "2 ** 20"}}',
    calls: [{ name: 'calculate', arguments: { expression: '2 ** 20' } }],
  },
  {
    id: 'llama-python-tag/pythonic-call',
    family: 'llama-3.1',
    shape: 'llama-python-tag',
    text: '<|python_tag|>calculate(expression="sqrt(144) + 1")<|eom_id|>',
    calls: [{ name: 'calculate', arguments: { expression: 'sqrt(144) + 1' } }],
  },
  {
    id: 'llama-python-tag/two-calls',
    family: 'llama-3.1',
    shape: 'llama-python-tag',
    text: '<|python_tag|>{"name": "calculate", "parameters": {"expression": "5 + 5"}}; {"name": "text_process", "parameters": {"text": "MiXeD", "operation": "lowercase"}}<|eom_id|>',
    calls: [
      { name: 'calculate', arguments: { expression: '5 + 5' } },
      { name: 'text_process', arguments: { text: 'MiXeD', operation: 'lowercase' } },
    ],
  },
  {
    id: 'llama-function-tag/one-call',
    family: 'llama-3.1',
    shape: 'llama-function-tag',
    text: '<function=get_time>{"timezone": "Asia/Kolkata"}</function>',
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Kolkata' } }],
  },
  {
    id: 'llama-function-tag/prose-before',
    family: 'llama-3.1',
    shape: 'llama-function-tag',
    text: 'Let me divide that.\n<function=calculate>{"expression": "100 / 8"}</function>',
    calls: [{ name: 'calculate', arguments: { expression: '100 / 8' } }],
    prose: ['Let me divide that.'],
  },
  {
    id: 'llama-function-tag/two-calls',
    family: 'llama-3.1',
    shape: 'llama-function-tag',
    text: '<function=calculate>{"expression": "11 * 11"}</function>\n<function=get_time>{"timezone": "America/Denver"}</function>',
    calls: [
      { name: 'calculate', arguments: { expression: '11 * 11' } },
      { name: 'get_time', arguments: { timezone: 'America/Denver' } },
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Llama 3.2 / Llama 4 pythonic: [f(a="x"), g(b=1)] as the reply.
// ---------------------------------------------------------------------------------------------------------------
const pythonic: PositiveReply[] = [
  {
    id: 'pythonic/one-call',
    family: 'llama-3.2',
    shape: 'pythonic',
    text: '[get_time(timezone="Asia/Tokyo")]',
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } }],
  },
  {
    id: 'pythonic/two-calls',
    family: 'llama-4',
    shape: 'pythonic',
    text: '[calculate(expression="3 * (4 + 5)"), get_time(timezone="UTC")]',
    calls: [
      { name: 'calculate', arguments: { expression: '3 * (4 + 5)' } },
      { name: 'get_time', arguments: { timezone: 'UTC' } },
    ],
  },
  {
    id: 'pythonic/single-quotes-and-escapes',
    family: 'llama-3.2',
    shape: 'pythonic',
    text: "[text_process(text='one\\ntwo\\nthree', operation='lines')]",
    calls: [{ name: 'text_process', arguments: { text: 'one\ntwo\nthree', operation: 'lines' } }],
  },
  {
    id: 'pythonic/python-boolean',
    family: 'llama-3.2',
    shape: 'pythonic',
    text: '[text_process(text="a.b.c", operation="replace", pattern=".", replacement="-", regex=False)]',
    calls: [{ name: 'text_process', arguments: { text: 'a.b.c', operation: 'replace', pattern: '.', replacement: '-', regex: false } }],
  },
  {
    id: 'pythonic/camel-case-name',
    family: 'llama-3.2',
    shape: 'pythonic',
    text: '[getTime(timezone="Pacific/Auckland")]',
    calls: [{ name: 'get_time', arguments: { timezone: 'Pacific/Auckland' }, written: 'getTime' }],
  },
  {
    id: 'pythonic/prose-before',
    family: 'llama-4',
    shape: 'pythonic',
    text: 'Sure, working it out.\n[calculate(expression="81 ** 0.5")]',
    calls: [{ name: 'calculate', arguments: { expression: '81 ** 0.5' } }],
    prose: ['Sure, working it out.'],
  },
  {
    id: 'pythonic/functions-prefix',
    family: 'llama-4',
    shape: 'pythonic',
    text: '[functions.calculate(expression="1 + 2 + 3 + 4")]',
    calls: [{ name: 'calculate', arguments: { expression: '1 + 2 + 3 + 4' }, written: 'functions.calculate' }],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// LFM2: <|tool_call_start|>[f(a="x")]<|tool_call_end|>, often with text after it.
// ---------------------------------------------------------------------------------------------------------------
const lfm2: PositiveReply[] = [
  {
    id: 'lfm2/one-call-text-after',
    family: 'lfm2',
    shape: 'lfm2',
    text: '<|tool_call_start|>[get_time(timezone="Europe/Madrid")]<|tool_call_end|>Checking the time in Madrid.',
    calls: [{ name: 'get_time', arguments: { timezone: 'Europe/Madrid' } }],
    prose: ['Checking the time in Madrid.'],
  },
  {
    id: 'lfm2/two-calls',
    family: 'lfm2',
    shape: 'lfm2',
    text: '<|tool_call_start|>[calculate(expression="250 * 4"), text_process(text="  padded  ", operation="trim")]<|tool_call_end|>',
    calls: [
      { name: 'calculate', arguments: { expression: '250 * 4' } },
      { name: 'text_process', arguments: { text: '  padded  ', operation: 'trim' } },
    ],
  },
  {
    id: 'lfm2/json-list',
    family: 'lfm2',
    shape: 'lfm2',
    text: '<|tool_call_start|>[{"name": "calculate", "arguments": {"expression": "64 / 4"}}]<|tool_call_end|>',
    calls: [{ name: 'calculate', arguments: { expression: '64 / 4' } }],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Mistral: v3 `[TOOL_CALLS] [{…, "id"}]`, Nemo `[TOOL_CALLS][…]`, v11+ `[TOOL_CALLS]name[ARGS]{…}`.
// ---------------------------------------------------------------------------------------------------------------
const mistral: PositiveReply[] = [
  {
    id: 'mistral/v3-with-id',
    family: 'mistral-7b-v0.3',
    shape: 'mistral',
    text: '[TOOL_CALLS] [{"name": "calculate", "arguments": {"expression": "9 * 9"}, "id": "a1B2c3D4e"}]',
    calls: [{ name: 'calculate', arguments: { expression: '9 * 9' } }],
  },
  {
    id: 'mistral/nemo-two-calls-eos',
    family: 'mistral-nemo',
    shape: 'mistral',
    text: '[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "Europe/Warsaw"}, "id": "Xy12Zw34q"}, {"name": "calculate", "arguments": {"expression": "13 * 17"}, "id": "Pq98Rs76t"}]</s>',
    calls: [
      { name: 'get_time', arguments: { timezone: 'Europe/Warsaw' } },
      { name: 'calculate', arguments: { expression: '13 * 17' } },
    ],
  },
  {
    id: 'mistral/v11-one-call',
    family: 'mistral-small-3.2',
    shape: 'mistral',
    text: '[TOOL_CALLS]get_time[ARGS]{"timezone": "America/Sao_Paulo"}',
    calls: [{ name: 'get_time', arguments: { timezone: 'America/Sao_Paulo' } }],
  },
  {
    id: 'mistral/v11-two-calls',
    family: 'devstral',
    shape: 'mistral',
    text: '[TOOL_CALLS]calculate[ARGS]{"expression": "4096 / 64"}[TOOL_CALLS]text_process[ARGS]{"text": "mistral", "operation": "uppercase"}',
    calls: [
      { name: 'calculate', arguments: { expression: '4096 / 64' } },
      { name: 'text_process', arguments: { text: 'mistral', operation: 'uppercase' } },
    ],
  },
  {
    // Cut off at the token limit: the arguments miss their closing brace.
    id: 'mistral/v11-arguments-missing-brace',
    family: 'mistral-small-3.2',
    shape: 'mistral',
    text: '[TOOL_CALLS]calculate[ARGS]{"expression": "6 * 7"',
    calls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }],
    repaired: true,
  },
  {
    id: 'mistral/v11-prose-before',
    family: 'magistral',
    shape: 'mistral',
    text: 'I need the exact product, so I will use the calculator.[TOOL_CALLS]calculate[ARGS]{"expression": "123 * 321"}',
    calls: [{ name: 'calculate', arguments: { expression: '123 * 321' } }],
    prose: ['I need the exact product, so I will use the calculator.'],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// DeepSeek V3 / R1 (`function<｜tool▁sep｜>NAME` + a json fence) and V3.1 (`NAME<｜tool▁sep｜>{…}`).
// ---------------------------------------------------------------------------------------------------------------
const deepseek: PositiveReply[] = [
  {
    id: 'deepseek/v3-one-call',
    family: 'deepseek-v3',
    shape: 'deepseek',
    text: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n${FENCE}json\n{"timezone": "Africa/Cairo"}\n${FENCE}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
    calls: [{ name: 'get_time', arguments: { timezone: 'Africa/Cairo' } }],
  },
  {
    id: 'deepseek/v3-two-calls',
    family: 'deepseek-v3',
    shape: 'deepseek',
    text:
      `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculate\n${FENCE}json\n{"expression": "31 * 24"}\n${FENCE}<｜tool▁call▁end｜>\n` +
      `<｜tool▁call▁begin｜>function<｜tool▁sep｜>text_process\n${FENCE}json\n{"text": "DeepSeek", "operation": "count"}\n${FENCE}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>`,
    calls: [
      { name: 'calculate', arguments: { expression: '31 * 24' } },
      { name: 'text_process', arguments: { text: 'DeepSeek', operation: 'count' } },
    ],
  },
  {
    id: 'deepseek/v3.1-one-call',
    family: 'deepseek-v3.1',
    shape: 'deepseek',
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>calculate<｜tool▁sep｜>{"expression": "2 * (3 + 4)"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [{ name: 'calculate', arguments: { expression: '2 * (3 + 4)' } }],
  },
  {
    id: 'deepseek/r1-thinking-then-call',
    family: 'deepseek-r1',
    shape: 'deepseek',
    text:
      '<think>\nThe user asks for the time in Singapore. I will call get_time with Asia/Singapore.\n</think>\n\n' +
      `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n${FENCE}json\n{"timezone": "Asia/Singapore"}\n${FENCE}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Singapore' } }],
    reasoning: 'I will call get_time with Asia/Singapore.',
  },
  {
    id: 'deepseek/ascii-tokens',
    family: 'deepseek-v3 (gguf)',
    shape: 'deepseek',
    text: `<|tool_calls_begin|><|tool_call_begin|>function<|tool_sep|>calculate\n${FENCE}json\n{"expression": "45 + 55"}\n${FENCE}<|tool_call_end|><|tool_calls_end|>`,
    calls: [{ name: 'calculate', arguments: { expression: '45 + 55' } }],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Gemma: calls as code in a ```tool_code fence, bare or print(...)-wrapped.
// ---------------------------------------------------------------------------------------------------------------
const gemma: PositiveReply[] = [
  {
    id: 'gemma/one-call',
    family: 'gemma-2',
    shape: 'gemma-tool-code',
    text: `${FENCE}tool_code\nget_time(timezone="UTC")\n${FENCE}`,
    calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }],
  },
  {
    id: 'gemma/print-wrapped',
    family: 'gemma-3',
    shape: 'gemma-tool-code',
    text: `${FENCE}tool_code\nprint(calculate(expression="2 * pi"))\n${FENCE}`,
    calls: [{ name: 'calculate', arguments: { expression: '2 * pi' } }],
  },
  {
    id: 'gemma/default-api-prefix',
    family: 'gemma-3',
    shape: 'gemma-tool-code',
    text: `${FENCE}tool_code\nprint(default_api.get_time(timezone="Asia/Seoul"))\n${FENCE}`,
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Seoul' }, written: 'default_api.get_time' }],
  },
  {
    id: 'gemma/two-lines',
    family: 'gemma-3',
    shape: 'gemma-tool-code',
    text: `${FENCE}tool_code\nprint(calculate(expression="60 * 60 * 24"))\nprint(text_process(text="Gemma", operation="uppercase"))\n${FENCE}`,
    calls: [
      { name: 'calculate', arguments: { expression: '60 * 60 * 24' } },
      { name: 'text_process', arguments: { text: 'Gemma', operation: 'uppercase' } },
    ],
  },
  {
    id: 'gemma/prose-before',
    family: 'gemma-3',
    shape: 'gemma-tool-code',
    text: `To find out, I'll check the clock.\n\n${FENCE}tool_code\nprint(get_time(timezone="Europe/Oslo"))\n${FENCE}`,
    calls: [{ name: 'get_time', arguments: { timezone: 'Europe/Oslo' } }],
    prose: ["To find out, I'll check the clock."],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Any model: a JSON call in a code fence.
// ---------------------------------------------------------------------------------------------------------------
const fencedJson: PositiveReply[] = [
  {
    id: 'fenced-json/json-tag',
    family: 'phi-3',
    shape: 'fenced-json',
    text: `${FENCE}json\n{"name": "calculate", "arguments": {"expression": "5 / 2"}}\n${FENCE}`,
    calls: [{ name: 'calculate', arguments: { expression: '5 / 2' } }],
  },
  {
    id: 'fenced-json/untagged-parameters',
    family: 'phi-3',
    shape: 'fenced-json',
    text: `${FENCE}\n{"name": "get_time", "parameters": {"timezone": "America/Los_Angeles"}}\n${FENCE}`,
    calls: [{ name: 'get_time', arguments: { timezone: 'America/Los_Angeles' } }],
  },
  {
    id: 'fenced-json/list-of-calls',
    family: 'granite-3',
    shape: 'fenced-json',
    text: `${FENCE}json\n[\n  {"name": "calculate", "arguments": {"expression": "14 * 3"}},\n  {"name": "text_process", "arguments": {"text": "fenced", "operation": "uppercase"}}\n]\n${FENCE}`,
    calls: [
      { name: 'calculate', arguments: { expression: '14 * 3' } },
      { name: 'text_process', arguments: { text: 'fenced', operation: 'uppercase' } },
    ],
  },
  {
    id: 'fenced-json/prose-around',
    family: 'smollm',
    shape: 'fenced-json',
    text: `I'll use the calculator tool:\n\n${FENCE}json\n{"name": "calculate", "arguments": {"expression": "1.5 * 4"}}\n${FENCE}\n\nThe result will follow.`,
    calls: [{ name: 'calculate', arguments: { expression: '1.5 * 4' } }],
    prose: ["I'll use the calculator tool:", 'The result will follow.'],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Any model: the OpenAI wire format echoed as text.
// ---------------------------------------------------------------------------------------------------------------
const openaiText: PositiveReply[] = [
  {
    id: 'openai-text/bare-string-arguments',
    family: 'any',
    shape: 'openai-text',
    text: '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "calculate", "arguments": "{\\"expression\\": \\"8 - 3\\"}"}}]}',
    calls: [{ name: 'calculate', arguments: { expression: '8 - 3' } }],
  },
  {
    id: 'openai-text/fenced-assistant-message',
    family: 'any',
    shape: 'openai-text',
    text: `${FENCE}json\n{"role": "assistant", "content": null, "tool_calls": [{"id": "call_abc", "type": "function", "function": {"name": "get_time", "arguments": {"timezone": "Asia/Dubai"}}}]}\n${FENCE}`,
    calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Dubai' } }],
  },
  {
    id: 'openai-text/two-calls',
    family: 'any',
    shape: 'openai-text',
    text:
      '{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": "{\\"expression\\": \\"2 + 2\\"}"}}, ' +
      '{"id": "c2", "type": "function", "function": {"name": "text_process", "arguments": "{\\"text\\": \\"Two\\", \\"operation\\": \\"lowercase\\"}"}}]}',
    calls: [
      { name: 'calculate', arguments: { expression: '2 + 2' } },
      { name: 'text_process', arguments: { text: 'Two', operation: 'lowercase' } },
    ],
  },
];

export const POSITIVES: readonly PositiveReply[] = [
  ...hermes,
  ...qwen3Coder,
  ...glm,
  ...llamaJson,
  ...llamaTags,
  ...pythonic,
  ...lfm2,
  ...mistral,
  ...deepseek,
  ...gemma,
  ...fencedJson,
  ...openaiText,
];

// ---------------------------------------------------------------------------------------------------------------
// Negatives: replies that only look like calls. Each must reach the user as it is and run nothing.
// ---------------------------------------------------------------------------------------------------------------
export const NEGATIVES: readonly NegativeReply[] = [
  {
    id: 'prose naming tools',
    why: 'prose that names offered tools is not a call',
    text: 'I can use calculate for the arithmetic or get_time for the clock. Which one would you like?',
  },
  {
    id: 'inline code with call syntax',
    why: 'a call shown in inline code, explained to the user',
    text: 'You could write `calculate(expression="2+2")` yourself; it returns 4.',
  },
  {
    id: 'user-asked JSON example (fenced)',
    why: 'a JSON document the user asked for',
    text: `Here is an example record:\n\n${FENCE}json\n{"name": "Alice", "age": 30, "roles": ["admin", "editor"]}\n${FENCE}`,
  },
  {
    id: 'user-asked JSON example (bare)',
    why: 'a bare JSON object that is data, not a call',
    text: 'A product could look like this:\n{"name": "Widget", "price": 9.99, "tags": ["new"]}',
  },
  {
    id: 'user-asked tool declaration JSON (fenced)',
    why: 'the user asked how a tool is declared; a declaration (description + JSON-schema parameters) is not a call',
    text:
      `This is how the calculator tool is declared for an OpenAI-style API:\n\n${FENCE}json\n` +
      '{"type": "function", "function": {"name": "calculate", "description": "Evaluate an arithmetic expression.", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}\n' +
      FENCE,
  },
  {
    id: 'user-asked tool declaration JSON (bare, Llama style)',
    why: 'a Llama-style function definition the user asked for (description + JSON-schema parameters) is not a call',
    text:
      'The get_time function is given to Llama like this:\n' +
      '{"name": "get_time", "description": "Get the current time.", "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": []}}',
  },
  {
    id: 'python code block',
    why: 'code to show, in a python fence',
    text: `Here is a script that does it:\n\n${FENCE}python\nresult = calculate(expression="2 + 2")\nzones = [get_time(timezone="UTC")]\nprint(result, zones)\n${FENCE}`,
  },
  {
    id: 'call to a tool that is not offered (hermes)',
    why: 'only offered tools become calls',
    text: '<tool_call>\n{"name": "send_email", "arguments": {"to": "bob@example.com", "subject": "Hi"}}\n</tool_call>',
  },
  {
    id: 'call to a tool that is not offered (pythonic)',
    why: 'only offered tools become calls',
    text: '[book_flight(origin="OSL", destination="LIS")]',
  },
  {
    id: 'call to a disabled tool',
    why: 'a tool the owner switched off is not offered',
    text: '<tool_call>\n{"name": "text_process", "arguments": {"text": "abc", "operation": "uppercase"}}\n</tool_call>',
    disable: 'text_process',
  },
  {
    id: 'markdown link on its own line',
    why: 'a link whose text is a tool name',
    text: 'The syntax is documented here:\n[calculate](https://example.com/docs/calculate)\nand the clock here: [get_time](https://example.com/docs/get_time).',
  },
  {
    id: 'list of numbers',
    why: 'a bracketed list of numbers',
    text: 'The first Fibonacci numbers are:\n[1, 1, 2, 3, 5, 8, 13]\nEach is the sum of the two before it.',
  },
  {
    id: 'list of strings',
    why: 'a bracketed list of data',
    text: '["calculate", "get_time", "text_process"]',
  },
  {
    id: 'explaining the tool_call tag inline',
    why: 'prose about the markup itself, the tag in inline code',
    text: 'Qwen wraps every call in a tag (`<tool_call>`) and closes it again; nothing is called here.',
  },
  {
    id: 'shell block',
    why: 'a shell example is code to show',
    text: `Run this in a terminal:\n\n${FENCE}bash\necho "[calculate(expression=1)]"\n${FENCE}`,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// A proxy's client defines its own tool; a reply calling it as text comes back to the client as a real call.
// ---------------------------------------------------------------------------------------------------------------
export const LOOKUP_ORDER = {
  type: 'function' as const,
  function: {
    name: 'lookup_order',
    description: "Looks an order up in the client app's own database (the client runs this tool).",
    parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'The order number, e.g. "A-1001".' } }, required: ['order_id'] },
  },
};

const ORDER = { order_id: 'A-1001' };

export const CLIENT_TOOL_REPLIES: readonly PositiveReply[] = [
  { id: 'hermes', family: 'qwen2.5', shape: 'hermes', text: '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}\n</tool_call>', calls: [] },
  { id: 'qwen3-coder', family: 'qwen3-coder', shape: 'qwen3-coder', text: '<tool_call>\n<function=lookup_order>\n<parameter=order_id>\nA-1001\n</parameter>\n</function>\n</tool_call>', calls: [] },
  { id: 'glm', family: 'glm-4.5', shape: 'glm', text: '<tool_call>lookup_order\n<arg_key>order_id</arg_key>\n<arg_value>A-1001</arg_value>\n</tool_call>', calls: [] },
  { id: 'llama-json', family: 'llama-3.1', shape: 'llama-json', text: '{"name": "lookup_order", "parameters": {"order_id": "A-1001"}}', calls: [] },
  { id: 'llama-python-tag', family: 'llama-3.1', shape: 'llama-python-tag', text: '<|python_tag|>{"name": "lookup_order", "parameters": {"order_id": "A-1001"}}<|eom_id|>', calls: [] },
  { id: 'llama-function-tag', family: 'llama-3.1', shape: 'llama-function-tag', text: '<function=lookup_order>{"order_id": "A-1001"}</function>', calls: [] },
  { id: 'pythonic', family: 'llama-3.2', shape: 'pythonic', text: '[lookup_order(order_id="A-1001")]', calls: [] },
  { id: 'lfm2', family: 'lfm2', shape: 'lfm2', text: '<|tool_call_start|>[lookup_order(order_id="A-1001")]<|tool_call_end|>Looking it up.', calls: [], prose: ['Looking it up.'] },
  { id: 'mistral-v3', family: 'mistral', shape: 'mistral', text: '[TOOL_CALLS] [{"name": "lookup_order", "arguments": {"order_id": "A-1001"}, "id": "Ab12Cd34E"}]', calls: [] },
  { id: 'mistral-v11', family: 'mistral-small-3.2', shape: 'mistral', text: '[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1001"}', calls: [] },
  {
    id: 'deepseek-v3',
    family: 'deepseek-v3',
    shape: 'deepseek',
    text: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>lookup_order\n${FENCE}json\n{"order_id": "A-1001"}\n${FENCE}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
    calls: [],
  },
  { id: 'deepseek-v3.1', family: 'deepseek-v3.1', shape: 'deepseek', text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>lookup_order<｜tool▁sep｜>{"order_id": "A-1001"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', calls: [] },
  { id: 'gemma', family: 'gemma-3', shape: 'gemma-tool-code', text: `${FENCE}tool_code\nprint(lookup_order(order_id="A-1001"))\n${FENCE}`, calls: [] },
  { id: 'fenced-json', family: 'any', shape: 'fenced-json', text: `Let me find it.\n${FENCE}json\n{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}\n${FENCE}`, calls: [], prose: ['Let me find it.'] },
  {
    id: 'openai-text',
    family: 'any',
    shape: 'openai-text',
    text: '{"tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "lookup_order", "arguments": "{\\"order_id\\": \\"A-1001\\"}"}}]}',
    calls: [],
  },
].map((reply) => ({ ...reply, calls: [{ name: 'lookup_order', arguments: ORDER }] }));

// ---------------------------------------------------------------------------------------------------------------
// Checks shared by the tests.
// ---------------------------------------------------------------------------------------------------------------

/** Call markup of any family: none of it may reach the user when the call was recovered. */
const MARKUP = [
  /<\/?tool_call>/,
  /<function=/,
  /<\/function>/,
  /<parameter=/,
  /<\/?arg_(key|value)>/,
  /<\|python_tag\|>/,
  /<\|eom_id\|>/,
  /<\|tool_call_(start|end)\|>/,
  /\[TOOL_CALLS\]/,
  /\[ARGS\]/,
  /tool[▁_]call/,
  /tool[▁_]sep/,
  /end[▁_]of[▁_]sentence/,
  /```tool_code/,
  /"(arguments|parameters)"\s*:/,
  /"tool_calls"\s*:/,
  /<\/?think>/,
  /<\/s>/,
];

/** The markup found in a text, for a failure message; [] when there is none. */
export function markupIn(text: string, calls: readonly IntendedCall[] = []): string[] {
  const found = MARKUP.filter((re) => re.test(text)).map(String);
  for (const call of calls) {
    const written = call.written ?? call.name;
    if (text.includes(`${written}(`)) found.push(`${written}(`);
    if (text.includes(`"${written}"`)) found.push(`"${written}"`);
  }
  return found;
}

/** The reply in the pieces a stream brings it in, split at awkward places. */
export type Split = 'chars' | 'opener' | 'inside-json';

export function splitReply(text: string, how: Split): string[] {
  const units = Array.from(text);
  if (how === 'chars') return units;
  const cuts = new Set<number>();
  if (how === 'opener') {
    // Inside every piece of markup that may open a call: `<tool_` + `call>`, `[TOOL_` + `CALLS]`, `` `` `` + `` `tool_code ``…
    units.forEach((c, i) => {
      if (c === '<' || c === '[' || c === '`' || c === '{') for (const d of [1, 3, 6]) cuts.add(i + d);
    });
  } else {
    // Inside the JSON (or the arguments): after every quote, colon, comma and `=`, and in the middle of each word.
    units.forEach((c, i) => {
      if (c === '"' || c === ':' || c === ',' || c === '=' || c === "'") cuts.add(i + 1);
      if (/\w/.test(c) && i % 4 === 0) cuts.add(i);
    });
  }
  const pieces: string[] = [];
  let from = 0;
  for (const cut of [...cuts].filter((c) => c > 0 && c < units.length).sort((a, b) => a - b)) {
    pieces.push(units.slice(from, cut).join(''));
    from = cut;
  }
  pieces.push(units.slice(from).join(''));
  return pieces.filter((p) => p !== '');
}

/** Whether two argument objects are the same JSON. */
export function sameArguments(a: unknown, b: unknown): boolean {
  return stable(a) === stable(b);
}

function stable(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
  );
}

/**
 * The defaults the tools' schemas declare: the gateway's validator fills them in, so a call that ran carries them
 * beside what the model wrote.
 */
const SCHEMA_DEFAULTS: Record<string, Record<string, unknown>> = {
  text_process: { replacement: '', regex: false, flags: '' },
  json_parse: { path: '' },
};

/** The intended arguments with the schema's defaults for what the model left out. */
export function withDefaults(call: IntendedCall): Record<string, unknown> {
  return { ...SCHEMA_DEFAULTS[call.name], ...call.arguments };
}

/**
 * Pairs intended calls with the calls that ran (any order); answers the problems: a missing intended call, a call
 * that ran but was not intended.
 */
export function matchCalls(intended: readonly IntendedCall[], ran: readonly { tool: string; arguments: unknown }[]): { problems: string[]; pairs: [IntendedCall, number][] } {
  const left = ran.map((r, i) => ({ ...r, i }));
  const problems: string[] = [];
  const pairs: [IntendedCall, number][] = [];
  for (const call of intended) {
    const at = left.findIndex((r) => r.tool === call.name && (sameArguments(r.arguments, call.arguments) || sameArguments(r.arguments, withDefaults(call))));
    if (at === -1) {
      problems.push(`intended call ${call.name} ${JSON.stringify(call.arguments)} did not run`);
      continue;
    }
    pairs.push([call, left[at]!.i]);
    left.splice(at, 1);
  }
  for (const extra of left) problems.push(`unintended call ${extra.tool} ${JSON.stringify(extra.arguments)} ran`);
  return { problems, pairs };
}

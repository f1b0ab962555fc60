import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { ToolError } from '../../errors.js';
import { defineTool } from '../types.js';

export const TEXT_OPERATIONS = ['uppercase', 'lowercase', 'trim', 'lines', 'words', 'count', 'replace', 'match'] as const;
export type TextOperation = (typeof TEXT_OPERATIONS)[number];

export const MAX_TEXT = 1_000_000;
export const MAX_PATTERN = 1_000;
const MAX_REPLACEMENT = 10_000;
export const MAX_MATCHES = 1_000;
/**
 * The longest result, as long as the longest text taken: more could not pass the default output limit anyway, and
 * building 10 MB on the gateway's thread per call, 128 calls to a batch, held every caller for seconds.
 */
const MAX_RESULT = MAX_TEXT;
/** Wall time a user regex may run; the worker is terminated when it passes. */
export const REGEX_TIME_LIMIT_MS = 1_000;
const ALLOWED_FLAGS = 'gimsuy';

interface TextProcessArgs {
  text: string;
  operation: TextOperation;
  pattern?: string;
  replacement?: string;
  regex?: boolean;
  flags?: string;
}

export interface TextMatch {
  match: string;
  /** Offset in UTF-16 code units, as JavaScript counts. */
  index: number;
  groups: Array<string | null>;
  named_groups?: Record<string, string | null>;
}

export type TextProcessResult =
  | { result: string }
  | { lines: string[]; count: number }
  | { words: string[]; count: number }
  | { characters: number; graphemes: number; words: number; lines: number; bytes: number }
  | { result: string; replacements: number }
  | { matches: TextMatch[]; count: number; truncated: boolean };

export const textProcessTool = defineTool<TextProcessArgs, TextProcessResult>({
  name: 'text_process',
  description:
    'Transform or analyse a piece of text. Use it for exact work that is easy to get wrong by eye: counting, ' +
    'splitting, search and replace, or finding every match of a regular expression. Operations: ' +
    '`uppercase`, `lowercase`, `trim` → `{ result }`; `lines` → `{ lines, count }` (splits on \\n, \\r\\n or \\r; a ' +
    'final newline does not add an empty line); `words` → `{ words, count }` (Unicode word segmentation, so Chinese ' +
    'and Japanese split into words too; punctuation is dropped); `count` → `{ characters, graphemes, words, lines, ' +
    'bytes }` where characters are Unicode code points, graphemes are user-perceived characters (an emoji with ' +
    'modifiers is one) and bytes is the UTF-8 size; `replace` → `{ result, replacements }` replaces every occurrence ' +
    'of `pattern` with `replacement`, literally unless `regex` is true (then `$1`, `$<name>` and `$&` work in the ' +
    'replacement); `match` → `{ matches: [{ match, index, groups, named_groups }], count, truncated }` finds every ' +
    `match of the regular expression \`pattern\` (at most ${MAX_MATCHES}; index counts UTF-16 code units). Regular ` +
    'expressions use JavaScript syntax, always act on every match, and are stopped after about one second.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The text to process.', maxLength: MAX_TEXT },
      operation: {
        type: 'string',
        enum: [...TEXT_OPERATIONS],
        description: 'What to do with the text.',
      },
      pattern: {
        type: 'string',
        description: 'For `replace` and `match`: the text to find, or a JavaScript regular expression (no slashes).',
        minLength: 1,
        maxLength: MAX_PATTERN,
      },
      replacement: {
        type: 'string',
        description: 'For `replace`: what to put in place of each match. Empty deletes the matches.',
        maxLength: MAX_REPLACEMENT,
        default: '',
      },
      regex: {
        type: 'boolean',
        description: 'For `replace`: treat `pattern` as a regular expression. `match` always does.',
        default: false,
      },
      flags: {
        type: 'string',
        description:
          'Regular expression flags, any of "gimsuy" (e.g. "i" to ignore case, "m" for ^ and $ at line breaks). ' +
          'Every match is always processed, so "g" is implied.',
        maxLength: ALLOWED_FLAGS.length,
        default: '',
      },
    },
    required: ['text', 'operation'],
    additionalProperties: false,
  },
  category: 'text',
  risk: 'safe',
  annotations: {
    title: 'Process text',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  timeoutMs: 15_000,
  async handler(args, ctx) {
    const text = args.text;
    if (typeof text !== 'string') throw new ToolError('INVALID_TEXT', 'text must be a string.');
    if (text.length > MAX_TEXT) {
      throw new ToolError('TEXT_TOO_LONG', `text is ${text.length} characters; the limit is ${MAX_TEXT}.`);
    }
    switch (args.operation) {
      case 'uppercase':
        return { result: text.toUpperCase() };
      case 'lowercase':
        return { result: text.toLowerCase() };
      case 'trim':
        return { result: text.trim() };
      case 'lines': {
        const lines = splitLines(text);
        return { lines, count: lines.length };
      }
      case 'words': {
        const words = await splitWords(text, ctx.signal);
        return { words, count: words.length };
      }
      case 'count':
        return {
          characters: countCodePoints(text),
          graphemes: await countGraphemes(text, ctx.signal),
          words: (await splitWords(text, ctx.signal)).length,
          lines: splitLines(text).length,
          bytes: Buffer.byteLength(text, 'utf8'),
        };
      case 'replace': {
        const pattern = requirePattern(args.pattern);
        const replacement = typeof args.replacement === 'string' ? args.replacement : '';
        const flags = checkFlags(args.flags);
        if (args.regex === true) {
          checkRegex(pattern, flags);
          return runRegex({ operation: 'replace', text, pattern, flags, replacement }, ctx.signal);
        }
        if (flags.replace('g', '') !== '') {
          throw new ToolError(
            'INVALID_FLAGS',
            'flags only apply to regular expressions: set "regex": true (escaping special characters in the pattern) or leave flags out.',
          );
        }
        return replaceLiteral(text, pattern, replacement);
      }
      case 'match': {
        const pattern = requirePattern(args.pattern);
        const flags = checkFlags(args.flags);
        checkRegex(pattern, flags);
        return runRegex({ operation: 'match', text, pattern, flags }, ctx.signal);
      }
      default:
        throw new ToolError(
          'INVALID_OPERATION',
          `Unknown operation "${String(args.operation)}". Use one of: ${TEXT_OPERATIONS.join(', ')}.`,
        );
    }
  },
});

/** Lines as Python's splitlines gives them: a trailing newline ends the last line rather than starting one. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

async function splitWords(text: string, signal: AbortSignal): Promise<string[]> {
  const words: string[] = [];
  await forEachSegment(text, 'word', signal, (segment) => {
    if (segment.isWordLike) words.push(segment.segment);
  });
  return words;
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += text.codePointAt(i)! > 0xffff ? 2 : 1) count++;
  return count;
}

async function countGraphemes(text: string, signal: AbortSignal): Promise<number> {
  // In ASCII only CR LF joins into one grapheme; skip the slow segmenter for the common case.
  if (!/[^\x00-\x7f]/.test(text)) return text.length - (text.split('\r\n').length - 1);
  let count = 0;
  await forEachSegment(text, 'grapheme', signal, () => count++);
  return count;
}

const PIECE = 1_000;
const CONTEXT = 64;

/**
 * Visits the segments of text. Node 20's V8 makes every Intl.Segmenter step cost O(text length), so one pass over
 * a long text is quadratic (crbug 326176949; 240k characters took 45 s here): we segment pieces of about 1k
 * characters cut at segment boundaries, and give the event loop a turn between batches so that a 1 MB text
 * cannot stall the gateway.
 */
async function forEachSegment(
  text: string,
  granularity: 'word' | 'grapheme',
  signal: AbortSignal,
  visit: (segment: Intl.SegmentData) => void,
): Promise<void> {
  const segmenter = new Intl.Segmenter(undefined, { granularity });
  for (let start = 0, pieces = 1; start < text.length; pieces++) {
    if (pieces % 50 === 0) {
      await yieldToEventLoop();
      if (signal.aborted) throw cancelled();
    }
    const end = pieceEnd(text, start, segmenter);
    for (const segment of segmenter.segment(text.slice(start, end))) visit(segment);
    start = end;
  }
}

/** A segment boundary near start + PIECE, found by segmenting a small window around it. */
function pieceEnd(text: string, start: number, segmenter: Intl.Segmenter): number {
  for (let from = start + PIECE - CONTEXT; from + CONTEXT < text.length; from += CONTEXT) {
    const window = text.slice(from, from + 2 * CONTEXT);
    const segment = segmenter.segment(window).containing(CONTEXT)!;
    // The window's own start is not a real boundary, so index 0 says nothing; the segment's end then may.
    if (segment.index > 0) return from + segment.index;
    if (segment.segment.length < window.length) return from + segment.segment.length;
    // One segment (a very long word, say) fills the window: look further on for its end.
  }
  return text.length;
}

function requirePattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new ToolError('MISSING_PATTERN', 'This operation needs a non-empty "pattern" to look for.');
  }
  if (pattern.length > MAX_PATTERN) {
    throw new ToolError('PATTERN_TOO_LONG', `pattern is ${pattern.length} characters; the limit is ${MAX_PATTERN}.`);
  }
  return pattern;
}

function checkFlags(flags: unknown): string {
  if (flags === undefined || flags === null) return '';
  if (typeof flags !== 'string') throw new ToolError('INVALID_FLAGS', `flags must be a string of "${ALLOWED_FLAGS}".`);
  for (const [i, flag] of [...flags].entries()) {
    if (!ALLOWED_FLAGS.includes(flag)) {
      throw new ToolError('INVALID_FLAGS', `Unsupported flag "${flag}"; allowed flags are "${ALLOWED_FLAGS}".`, { flags });
    }
    if (flags.indexOf(flag) !== i) {
      throw new ToolError('INVALID_FLAGS', `Flag "${flag}" is given twice.`, { flags });
    }
  }
  return flags;
}

/** Syntax errors are found here, cheaply: parsing a pattern is linear, only matching can backtrack. */
function checkRegex(pattern: string, flags: string): void {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolError('INVALID_REGEX', (error as Error).message, { pattern, flags });
  }
}

function replaceLiteral(text: string, pattern: string, replacement: string): { result: string; replacements: number } {
  const parts = text.split(pattern);
  const replacements = parts.length - 1;
  // A short pattern swapped for a long replacement can grow the text a thousandfold: refuse before building it.
  const size = text.length + replacements * (replacement.length - pattern.length);
  if (size > MAX_RESULT) throw resultTooLarge(size);
  return { result: parts.join(replacement), replacements };
}

function resultTooLarge(size: number): ToolError {
  return new ToolError(
    'RESULT_TOO_LARGE',
    `The result would be ${size} characters; the limit is ${MAX_RESULT}. Process a smaller text.`,
    { size, limit: MAX_RESULT },
  );
}

type RegexJob =
  | { operation: 'match'; text: string; pattern: string; flags: string }
  | { operation: 'replace'; text: string; pattern: string; flags: string; replacement: string };

type WorkerAnswer =
  | { ok: true; value: { result: string; replacements: number } | { matches: TextMatch[]; truncated: boolean } }
  | { ok: true; tooLarge: number }
  | { ok: false; message: string };

/**
 * Runs in a worker so that a catastrophically backtracking pattern (ReDoS) blocks only that thread, which we can
 * terminate; on the main thread it would freeze the whole gateway. This source is ours: user input arrives only
 * as workerData.
 */
const WORKER_SOURCE = `
const { parentPort, workerData: job } = require('node:worker_threads');
function run() {
  const re = new RegExp(job.pattern, job.flags.includes('g') ? job.flags : job.flags + 'g');
  if (job.operation === 'match') {
    const matches = [];
    for (const m of job.text.matchAll(re)) {
      if (matches.length === job.maxMatches) return { value: { matches, truncated: true } };
      const entry = { match: m[0], index: m.index, groups: m.slice(1).map((g) => g ?? null) };
      if (m.groups) entry.named_groups = Object.fromEntries(Object.entries(m.groups).map(([k, v]) => [k, v ?? null]));
      matches.push(entry);
    }
    return { value: { matches, truncated: false } };
  }
  let replacements = 0;
  let result;
  if (job.replacement.includes('$')) {
    for (const _ of job.text.matchAll(re)) replacements++;
    result = job.text.replace(re, job.replacement);
  } else {
    result = job.text.replace(re, () => { replacements++; return job.replacement; });
  }
  if (result.length > job.maxResult) return { tooLarge: result.length };
  return { value: { result, replacements } };
}
try {
  parentPort.postMessage({ ok: true, ...run() });
} catch (error) {
  parentPort.postMessage({ ok: false, message: String((error && error.message) || error) });
}
`;

async function runRegex(job: RegexJob, signal: AbortSignal): Promise<TextProcessResult> {
  const answer = await runInWorker(job, signal);
  if (!answer.ok) throw new ToolError('REGEX_FAILED', `The regular expression failed: ${answer.message}`);
  if ('tooLarge' in answer) throw resultTooLarge(answer.tooLarge);
  const value = answer.value;
  return 'matches' in value ? { matches: value.matches, count: value.matches.length, truncated: value.truncated } : value;
}

function runInWorker(job: RegexJob, signal: AbortSignal): Promise<WorkerAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(cancelled());
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...job, maxMatches: MAX_MATCHES, maxResult: MAX_RESULT },
      // A replacement that explodes in size must exhaust the worker's heap, not the gateway's.
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      // terminate() interrupts a regex mid-backtrack; the worker can never outlive its call.
      void worker.terminate();
      outcome();
    };
    const onAbort = () => settle(() => reject(cancelled()));
    signal.addEventListener('abort', onAbort, { once: true });
    // The clock starts once the worker runs, so a slow thread start-up on a busy machine is not held against the pattern.
    worker.once('online', () => {
      timer = setTimeout(() => settle(() => reject(regexTimeout())), REGEX_TIME_LIMIT_MS);
    });
    worker.on('message', (answer: WorkerAnswer) => settle(() => resolve(answer)));
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ToolError('RESULT_TOO_LARGE', 'The regular expression ran out of memory; process a smaller text.')
            : new ToolError('REGEX_FAILED', `The regular expression could not run: ${error.message}`),
        ),
      ),
    );
    worker.on('exit', (code) =>
      settle(() => reject(new ToolError('REGEX_FAILED', `The regular expression worker stopped unexpectedly (exit code ${code}).`))),
    );
  });
}

function regexTimeout(): ToolError {
  return new ToolError(
    'REGEX_TIMEOUT',
    `The regular expression ran longer than ${REGEX_TIME_LIMIT_MS / 1000} s and was stopped. It probably backtracks ` +
      'catastrophically: avoid nested or overlapping quantifiers such as (a+)+, (.*)* or (a|a)*, anchor the pattern, ' +
      'or use a simpler pattern or a smaller text.',
    { time_limit_ms: REGEX_TIME_LIMIT_MS },
  );
}

function cancelled(): ToolError {
  return new ToolError('CALL_CANCELLED', 'The call was cancelled before the regular expression finished.');
}

import { redactText } from './redact-text/index.js';
import { REDACTED } from './redact-text/scan.js';
import { opensPrivateKey } from './redact-text/shapes.js';
import { isSecretName } from './secret-names.js';

export { REDACTED };

/**
 * The values Pincer knows to be secret (its tokens, the LLM server's key, imported servers' secrets), asked for
 * each time something is redacted, so a key set or changed while the gateway runs is redacted from then on.
 */
export type KnownSecrets = () => readonly (string | null | undefined)[];

/** Shorter known values are left to the shapes: a short value would match ordinary text. */
const MIN_KNOWN_LENGTH = 12;

/** What a call record needs for redaction (the store's CallRecord has these). */
interface RedactableCall {
  arguments: unknown;
  result: unknown;
  error: { name: string; message: string } | null;
  reason: string | null;
}

/**
 * Redaction of what Pincer keeps and shows (history, events, approval cards, conversations): secret-named entries
 * of objects, secrets found by shape in any string, and the known secret values wherever they occur.
 */
export class Redactor {
  #asked: readonly (string | null | undefined)[] = [];
  #values: readonly string[] = [];
  /** Arguments are redacted once per call however often the call is shown (started, running, recorded). */
  readonly #arguments = new WeakMap<object, { values: readonly string[]; redacted: unknown }>();

  constructor(private readonly known: KnownSecrets = () => []) {}

  /** A deep copy of `value`, as JSON would serialize it, with secrets replaced. */
  redact(value: unknown): unknown {
    return walk(value, this.#known(), 0);
  }

  /** One string with secrets replaced. */
  text(text: string): string {
    return redactString(text, this.#known());
  }

  /** A call as history and events show it: arguments, result, error message and the policy's reason redacted. */
  record<T extends RedactableCall>(record: T): T {
    const values = this.#known();
    return {
      ...record,
      arguments: this.#redactArguments(record.arguments, values),
      result: walk(record.result, values, 0),
      error: record.error && { ...record.error, message: redactString(record.error.message, values) },
      reason: record.reason === null ? null : redactString(record.reason, values),
    };
  }

  /** For a tool's live output: what is redacted, line by line, as chunks come. */
  stream(): OutputRedaction {
    return new OutputRedaction(this);
  }

  #redactArguments(args: unknown, values: readonly string[]): unknown {
    if (args === null || typeof args !== 'object') return walk(args, values, 0);
    const seen = this.#arguments.get(args);
    if (seen?.values === values) return seen.redacted;
    const redacted = walk(args, values, 0);
    this.#arguments.set(args, { values, redacted });
    return redacted;
  }

  #known(): readonly string[] {
    const asked = this.known();
    if (asked.length === this.#asked.length && asked.every((value, i) => value === this.#asked[i])) return this.#values;
    this.#asked = [...asked];
    // Longest first: a value that contains another is replaced whole.
    this.#values = [...new Set(asked.filter((v): v is string => typeof v === 'string' && v.length >= MIN_KNOWN_LENGTH))].sort((a, b) => b.length - a.length);
    return this.#values;
  }
}

/** Redaction by shape and key name only, for callers that know no secret values. */
const byShape = new Redactor();

/** A deep copy of `value`, as JSON would serialize it, with secrets found by key name and shape replaced. */
export function redactSecrets(value: unknown): unknown {
  return byShape.redact(value);
}

function redactString(text: string, values: readonly string[]): string {
  let result = text;
  for (const value of values) {
    if (result.length >= value.length && result.includes(value)) result = result.split(value).join(REDACTED);
  }
  return redactText(result);
}

/**
 * Numbers and booleans under a secret-looking key stay: they are counts or switches ("max_tokens": 256,
 * "use_cookies": true), not credentials.
 */
function walk(value: unknown, values: readonly string[], depth: number): unknown {
  if (depth > 64) return REDACTED;
  if (typeof value === 'string') return redactString(value, values);
  if (value === null || typeof value !== 'object') return value;
  // A Date (or anything with toJSON) is recorded as JSON would send it, not as an empty object.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return walk((value as { toJSON(): unknown }).toJSON(), values, depth + 1);
  }
  if (Array.isArray(value)) return value.map((item) => walk(item, values, depth + 1));
  // fromEntries defines own properties, so a "__proto__" key in a tool's result stays data, never a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      redactString(key, values),
      isSecretEntry(key, item) ? REDACTED : walk(item, values, depth + 1),
    ]),
  );
}

function isSecretEntry(key: string, item: unknown): boolean {
  if (item === null || item === undefined || item === '' || typeof item === 'number' || typeof item === 'boolean') return false;
  return isSecretName(key);
}

/** A line longer than this is let through in pieces (redacted) rather than held back until it ends. */
const MAX_HELD = 8192;

/**
 * Live output comes in chunks that can cut a secret in two, so whole lines are redacted: a chunk's unfinished last
 * line waits for the rest (or the end of the call). A private key's base64 lines carry no marker of their own, so
 * the lines after a BEGIN line are withheld until its END line.
 */
export class OutputRedaction {
  #held = '';
  #inKey = false;
  #keyShown = false;

  constructor(private readonly redactor: Redactor) {}

  /** What of `chunk` (with what was held back) can be shown now, redacted; may be empty. */
  push(chunk: string): string {
    const text = this.#held + chunk;
    let cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
    if (cut < 0) {
      if (text.length <= MAX_HELD) {
        this.#held = text;
        return '';
      }
      cut = text.length - 1;
    }
    this.#held = text.slice(cut + 1);
    return this.#lines(text.slice(0, cut + 1));
  }

  /** The rest, when the output ends. */
  end(): string {
    const rest = this.#held;
    this.#held = '';
    return rest === '' ? '' : this.#lines(rest);
  }

  #lines(text: string): string {
    if (!this.#inKey && !text.includes('PRIVATE KEY')) return this.redactor.text(text);
    const shown: string[] = [];
    for (const line of text.split(/(?<=[\r\n])/)) {
      if (this.#inKey) {
        const end = line.indexOf('-----END');
        if (end < 0) {
          if (!this.#keyShown) shown.push(`${REDACTED}\n`);
          this.#keyShown = true;
          continue;
        }
        this.#inKey = false;
        shown.push(this.redactor.text(line.slice(end)));
        continue;
      }
      shown.push(this.redactor.text(line));
      if (opensPrivateKey(line)) {
        this.#inKey = true;
        this.#keyShown = false;
      }
    }
    return shown.join('');
  }
}

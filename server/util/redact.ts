/** Keys whose values are secrets: never written to history, never shown in the log. */
const SECRET_KEY = /(pass(word|wd|phrase)?|secret|token|api[-_]?key|apikey|authorization|auth[-_]?header|cookie|credential|private[-_]?key|access[-_]?key|session[-_]?id|client[-_]?secret)/i;
/** Values that carry a credential on their own (an Authorization header pasted into a string). */
const SECRET_VALUE = /^(bearer|basic)\s+\S{8,}$/i;

export const REDACTED = '[REDACTED]';

/** A deep copy of `value` with secret-looking entries replaced. Cheap when there is nothing to redact. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 64) return REDACTED;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  // fromEntries defines own properties, so a "__proto__" key in a tool's result stays data, never a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_KEY.test(key) && item !== null && item !== '' ? REDACTED : redactSecrets(item, depth + 1),
    ]),
  );
}

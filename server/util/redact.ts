/**
 * Words that mark a key's value as a secret: never written to history, never shown in the log. Matched on whole
 * words of the key (snake, kebab or camel case), so "passage", "bypass", "secretary" or "tokenizer" are not caught.
 */
const SECRET_KEY =
  /(?:^|_)(?:pass|passwd|password|passphrase|passcode|secrets?|tokens?|api_?key|authorization|auth_?header|cookies?|credentials?|private_?key|access_?key|session_?id|client_?secret)(?=[_\d]|$)/;
/** Values that carry a credential on their own (an Authorization header pasted into a string). */
const SECRET_VALUE = /^(bearer|basic)\s+\S{8,}$/i;

export const REDACTED = '[REDACTED]';

/** "xApiKey", "X-API-Key", "APIKey" → "x_api_key", "x_api_key", "api_key". */
function keyWords(key: string): string {
  return key
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z\d]+/g, '_')
    .toLowerCase();
}

/**
 * A deep copy of `value`, as JSON would serialize it, with secret-looking entries replaced. Numbers and booleans
 * under a secret-looking key stay: they are counts or switches ("max_tokens": 256, "use_cookies": true), not
 * credentials.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 64) return REDACTED;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  // A Date (or anything with toJSON) is recorded as JSON would send it, not as an empty object.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return redactSecrets((value as { toJSON(): unknown }).toJSON(), depth + 1);
  }
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  // fromEntries defines own properties, so a "__proto__" key in a tool's result stays data, never a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      isSecretEntry(key, item) ? REDACTED : redactSecrets(item, depth + 1),
    ]),
  );
}

function isSecretEntry(key: string, item: unknown): boolean {
  if (item === null || item === undefined || item === '' || typeof item === 'number' || typeof item === 'boolean') return false;
  return SECRET_KEY.test(keyWords(key));
}

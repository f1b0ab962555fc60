/**
 * Which keys name a secret: never written to history, never shown in the log. Matched on whole words of the key
 * (snake, kebab, dotted or camel case; a number may follow a word), so "passage", "bypass", "secretary" or
 * "tokenizer" are not caught; "auth" counts only as the last word ("basic_auth", "auth"), never as the first
 * ("auth_method").
 */
const SECRET_WORDS = new Set([
  'pass',
  'passwd',
  'password',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'token',
  'tokens',
  'apikey',
  'authorization',
  'authheader',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'privatekey',
  'accesskey',
  'sessionid',
  'clientsecret',
]);
/** Two words that name a secret together: "api" "key", "session" "id". */
const SECRET_PAIRS = new Set(['api key', 'auth header', 'private key', 'access key', 'session id', 'client secret']);
const PASSWORD_WORDS = new Set(['pass', 'passwd', 'password', 'passphrase', 'passcode']);

/**
 * The words of a key, lower-cased: "xApiKey", "X-API-Key", "APIKey2" → x api key, x api key, api key2. Written as
 * one loop rather than regular expressions: the text scanner asks this of every key-like word it meets.
 */
function keyWords(key: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= key.length; i++) {
    const code = i < key.length ? key.charCodeAt(i) : 0;
    const upper = code >= 65 && code <= 90;
    const lower = code >= 97 && code <= 122;
    const digit = code >= 48 && code <= 57;
    if (!(upper || lower || digit)) {
      if (start >= 0) words.push(key.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start < 0) {
      start = i;
      continue;
    }
    if (!upper) continue;
    const before = key.charCodeAt(i - 1);
    const next = i + 1 < key.length ? key.charCodeAt(i + 1) : 0;
    const beforeUpper = before >= 65 && before <= 90;
    // "apiKey" splits before K; "APIKey" splits before K too (an upper-case letter that starts a capitalised word).
    if (!beforeUpper || (next >= 97 && next <= 122)) {
      words.push(key.slice(start, i).toLowerCase());
      start = i;
    }
  }
  return words;
}

/** "token2" → "token": a number after a word still leaves the word. */
function withoutNumber(word: string): string {
  let end = word.length;
  while (end > 0 && word.charCodeAt(end - 1) >= 48 && word.charCodeAt(end - 1) <= 57) end--;
  return end === word.length ? word : word.slice(0, end);
}

function judge(key: string): boolean {
  const words = keyWords(key);
  for (let i = 0; i < words.length; i++) {
    const word = withoutNumber(words[i]!);
    if (SECRET_WORDS.has(word)) return true;
    if (i + 1 < words.length && /^[a-z]+$/.test(words[i]!) && SECRET_PAIRS.has(`${words[i]} ${withoutNumber(words[i + 1]!)}`)) return true;
  }
  return words.length > 0 && words[words.length - 1] === 'auth';
}

/** Answers for keys seen lately: the same few keys come back in every call. */
const judged = new Map<string, boolean>();

/** Whether a key (an object key, an environment variable, a header, a command-line flag) names a secret. */
export function isSecretName(key: string): boolean {
  let secret = judged.get(key);
  if (secret === undefined) {
    secret = judge(key);
    if (judged.size >= 4096) judged.clear();
    judged.set(key, secret);
  }
  return secret;
}

/** Whether the key names a password: its value is secret even when it is a number. */
export function isPasswordName(key: string): boolean {
  return keyWords(key).some((word) => PASSWORD_WORDS.has(withoutNumber(word)));
}

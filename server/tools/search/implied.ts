/**
 * What a request says without the word: a file name or a path means a file, a web address a URL, `#general` a chat
 * channel, `#12` an issue, `@jane` a user, `17% of 2340` a calculation. People type the thing, not its kind
 * ("open notes.txt", "post it to #general").
 */

const URL_LIKE = /\b(?:https?:\/\/|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|edu|gov|app|ai|co)\b(?:\/\S*)?/giu;
const FILE_LIKE = /(?:^|[\s"'`(])((?:[~.]?\/)?(?:[\w.-]+\/)*[\w-]*\.[a-z][a-z0-9]{0,4})(?=$|[\s"'`),;:!?])/giu;
const PATH_LIKE = /(?:^|\s)((?:~|\.{1,2})?\/[\w./-]+)/gu;
/** Files known by a name without an extension. */
const FILE_NAMES = /\b(README|LICEN[CS]E|CHANGELOG|Makefile|Dockerfile|Gemfile|Procfile|Jenkinsfile)\b/gu;
const CHANNEL_LIKE = /(?:^|\s)(#\p{L}[\p{L}\p{N}_-]*)/gu;
const NUMBER_REF = /(?:^|\s)(#\d+)\b/gu;
const USER_LIKE = /(?:^|\s)(@[\p{L}\p{N}_.-]+)/gu;
/** Arithmetic written out: `3 * (4 + 5)`, `10 - 4`, `17% of`, `sqrt(2)` (not dates or phone numbers: `2024-01-05`). */
const ARITHMETIC = /\d\s*[+*/×÷^]\s*[\d(]|\d\s+-\s+[\d(]|\d\s*%(?!\w)|\b(?:sqrt|log|ln|exp|sin|cos|tan)\s*\(/u;

/** Each word a request implies, with the text that implies it, in order of kind. */
export function impliedWords(text: string): { word: string; token: string }[] {
  const implied: { word: string; token: string }[] = [];
  const urls = [...text.matchAll(URL_LIKE)].map((m) => m[0]);
  for (const token of urls) implied.push({ word: 'url', token });
  // A web address is not also a file name or a path.
  const rest = urls.reduce((left, url) => left.replace(url, ' '), text);
  const each = (pattern: RegExp, word: string) => {
    for (const m of rest.matchAll(pattern)) {
      const token = m[1]!;
      if (!implied.some((i) => i.word === word && i.token === token)) implied.push({ word, token });
    }
  };
  each(FILE_LIKE, 'file');
  each(PATH_LIKE, 'file');
  each(FILE_NAMES, 'file');
  each(CHANNEL_LIKE, 'channel');
  each(NUMBER_REF, 'issue');
  each(USER_LIKE, 'user');
  const arithmetic = ARITHMETIC.exec(rest);
  if (arithmetic) implied.push({ word: 'calculate', token: arithmetic[0].trim() });
  return implied;
}

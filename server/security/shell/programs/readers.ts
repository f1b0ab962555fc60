import { type Word } from '../words.js';
import { type Check, type CheckResult, dynamicArgument, flags, OK, problem, short, unsure } from './check.js';

/** Programs that print what files hold or what they are: most read whatever their arguments; a few options write. */

/** Programs that only read whatever their arguments: no option writes files or runs other programs. */
const ANY_ARGUMENTS = [
  'ls', 'dir', 'vdir', 'cat', 'tac', 'nl', 'head', 'tail', 'wc', 'pwd', 'echo', 'true', 'false', ':', 'whoami',
  'id', 'groups', 'logname', 'users', 'who', 'w', 'uname', 'arch', 'nproc', 'uptime', 'free', 'basename',
  'dirname', 'realpath', 'readlink', 'which', 'whereis', 'type', 'cut', 'tr', 'fold', 'paste', 'column', 'expand',
  'unexpand', 'rev', 'comm', 'cmp', 'diff', 'diff3', 'stat', 'printenv', 'seq', 'expr', 'factor', 'md5sum',
  'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'md5', 'shasum', 'base64',
  'base32', 'basenc', 'od', 'hexdump', 'strings', 'du', 'df', 'lsblk', 'lscpu', 'lsusb', 'lspci', 'vmstat', 'iostat',
  'mpstat', 'pgrep', 'pidof', 'lsof', 'netstat', 'locale', 'tty', 'cal', 'ncal', 'sleep', 'jobs',
  'wait', 'cd', 'pushd', 'popd', 'dirs', 'umask', 'times', 'grep', 'egrep', 'fgrep', 'jq', 'numfmt', 'tsort', 'join',
  'look', 'fmt', 'lsattr', 'getfacl', 'namei', 'pathchk', 'help', 'unalias', 'exit', 'return', 'break', 'continue',
  'shift', 'top', 'pstree', 'lsmod', 'sensors', 'sw_vers', 'lsb_release', 'getconf', 'zcat', 'bzcat',
  'xzcat', 'yes', 'last', 'ulimit', 'locate', 'plocate', 'mlocate', 'mdfind', 'clear', 'tput',
];

function checkTee(args: Word[]): CheckResult {
  for (const word of args) {
    if (unsure(word)) return dynamicArgument('tee', word);
    const v = word.value!;
    if (v.startsWith('-') || v === '/dev/null' || v === '/dev/stdout' || v === '/dev/stderr') continue;
    return problem('not-read-only', `tee writes to ${short(word.text)}.`);
  }
  return OK;
}

export const READER_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ...ANY_ARGUMENTS.map((name) => [name, () => OK] as [string, Check]),
  ['tee', checkTee],
  [
    'sort',
    flags({
      valueShort: 'ktST',
      valueLong: [
        'key', 'field-separator', 'buffer-size', 'temporary-directory', 'parallel', 'files0-from', 'sort',
        'random-source', 'batch-size',
      ],
      badShort: 'o',
      badLong: ['output', 'compress-program'],
      badWhy: 'writes a file or runs a compression program',
    }),
  ],
  [
    'shuf',
    flags({
      valueShort: 'in',
      valueLong: ['input-range', 'head-count', 'random-source'],
      badShort: 'o',
      badLong: ['output'],
      badWhy: 'writes to a file',
    }),
  ],
  [
    'uniq',
    flags({
      valueShort: 'fsw',
      valueLong: ['skip-fields', 'skip-chars', 'check-chars'],
      maxPositionals: 1,
      positionalWhy: 'with a second file name writes its output to that file',
    }),
  ],
  ['xxd', xxdCheck],
  [
    'tree',
    flags({
      valueShort: 'LPIHT',
      valueLong: ['filelimit', 'timefmt', 'sort', 'charset'],
      badShort: 'oR',
      badLong: ['output'],
      badWhy: 'writes files',
    }),
  ],
  [
    'file',
    flags({
      valueShort: 'efFmP',
      valueLong: ['exclude', 'separator', 'magic-file', 'files-from', 'parameter'],
      badShort: 'C',
      badLong: ['compile'],
      badWhy: 'writes a compiled magic file',
      globsSafe: true,
    }),
  ],
  [
    'iconv',
    flags({
      valueShort: 'ft',
      valueLong: ['from-code', 'to-code'],
      badShort: 'o',
      badLong: ['output'],
      badWhy: 'writes to a file',
    }),
  ],
  [
    'rg',
    flags({
      valueShort: 'ABCefgjmMrtTE',
      valueLong: [
        'after-context', 'before-context', 'context', 'regexp', 'file', 'glob', 'iglob', 'threads', 'max-count',
        'max-columns', 'type', 'type-not', 'encoding', 'sort', 'sortr', 'max-depth', 'max-filesize', 'color', 'colors',
        'ignore-file', 'path-separator', 'context-separator', 'field-match-separator', 'field-context-separator',
        'replace', 'type-add', 'type-clear', 'engine', 'dfa-size-limit', 'regex-size-limit', 'hyperlink-format',
      ],
      badLong: ['pre', 'pre-glob', 'hostname-bin'],
      badWhy: 'runs another program on every file',
    }),
  ],
  ['yq', flags({ badShort: 'i', badLong: ['inplace', 'in-place'], badWhy: 'edits files in place' })],
];

/** Commands that only look at names and sizes, never at what a file holds. */
export const METADATA_ONLY = new Set([
  'ls', 'dir', 'vdir', 'stat', 'du', 'test', '[', 'realpath', 'readlink', 'basename', 'dirname', 'find', 'tree',
  'lsattr', 'getfacl', 'namei', 'pathchk', 'cd', 'pushd', 'which', 'type', 'echo', 'printf',
]);

/**
 * Recursive readers: pointed at a folder holding Pincer's data, they read it. Which files under their folders they
 * read (hidden ones, ignored ones, tracked ones) is recursive-reads.ts.
 */
export function readsRecursively(program: string, args: Word[]): boolean {
  const values = args.map((w) => w.value ?? '');
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'zgrep':
      return values.some(
        (v, i) =>
          /^-[^-]*[rR]/.test(v) ||
          /^--(?:recursive|dereference-recursive|directories=recurse)$/.test(v) ||
          ((v === '-d' || v === '--directories') && values[i + 1] === 'recurse'),
      );
    case 'rg':
      return true;
    case 'git': {
      // `git grep` reads the work tree; `git diff --no-index` compares two folders file by file.
      const sub = gitSubcommand(values);
      return sub === 'grep' || (sub === 'diff' && values.includes('--no-index'));
    }
    case 'diff':
      return values.some((v) => /^-[^-]*r/.test(v) || v === '--recursive');
    case 'cat':
    case 'head':
    case 'tail':
    case 'strings':
    case 'wc':
    case 'md5sum':
    case 'sha256sum':
    case 'sha1sum':
      return false;
    default:
      return false;
  }
}

/** The subcommand of a git command line: the first word after the global options (`-C DIR`, `-c KEY=VALUE`). */
export function gitSubcommand(values: readonly string[]): string | undefined {
  const at = gitSubcommandAt(values);
  return at === -1 ? undefined : values[at];
}

/** Where the subcommand of a git command line is, or -1. */
export function gitSubcommandAt(values: readonly string[]): number {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === '-C' || v === '-c') i++;
    else if (!v.startsWith('-')) return i;
  }
  return -1;
}

const xxdFlags = flags({ valueShort: 'cglosn', maxPositionals: 1, positionalWhy: 'with a second file name writes to that file' });

/**
 * Security: xxd reads an option by its first letter (`-ps` is `-p`, `-cols` is `-c`), not as getopt does; read as a
 * bundle, `xxd -ps IN OUT` hid IN behind `-s` and wrote OUT unasked. Options are taken one letter a word only.
 */
function xxdCheck(args: Word[], program: string): CheckResult {
  const odd = args.find((w) => w.value !== undefined && /^-[^-]./.test(w.value));
  if (odd) {
    return problem('not-read-only', `${program} ${short(odd.text)}: xxd reads options by their first letter, so which words are file names (a second one is written) cannot be told; give each option as one letter on its own.`);
  }
  return xxdFlags(args, program);
}

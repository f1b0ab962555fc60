import { posix } from 'node:path';
import { scanOptions, type ScannedOption } from './options.js';
import { literalWord, type Word } from './words.js';

/**
 * Which words of a read-only command name files it reads. `cat /etc/passwd` reads outside the roots exactly as
 * `file_read` would, so its path operands are judged like the file tools' paths (operand-places.ts). A grep pattern,
 * a sed script, `date +%F` or an `echo` text are not paths: reading them as paths would ask for nothing.
 */

export interface Operands {
  /** Files or folders the command opens (or, for `cd`, moves into). */
  paths: Word[];
  /** Folders it reads through recursively (`grep -r`, `find`, `du`); `.` when it names none. */
  recursive: Word[];
  /** Whether that recursion follows symbolic links found inside (`grep -R`, `find -L`, `rg -L`). */
  followsLinks: boolean;
  /** The options as scanned, for checks that look at more than paths (which files a recursive read takes). */
  options?: ScannedOption[];
}

interface Spec {
  /** The arguments are text, never files (`echo`, `uname`, `tr`). */
  none?: true;
  /** Positional arguments are not files (`date +%F`, `journalctl UNIT`); only option values can be. */
  noPositionals?: true;
  /** Short options that take a value that is not a path (`head -n 5`, `cut -d /`). */
  values?: string;
  valuesLong?: readonly string[];
  /** Short options whose value is a path (`grep -f FILE`, `du -X FILE`). */
  files?: string;
  filesLong?: readonly string[];
  /** The first positional is a pattern or a script (grep, sed, awk, jq) unless one of these options gave it. */
  pattern?: { short: string; long: readonly string[] };
  /** Reads its operands recursively (with these options). */
  recursive?: RegExp | true;
  /** The recursion follows links inside (with these options). */
  follows?: RegExp;
}

const NONE: Spec = { none: true };

const GREP: Spec = {
  values: 'ABCmdDe',
  valuesLong: [
    'after-context', 'before-context', 'context', 'max-count', 'regexp', 'include', 'exclude', 'exclude-dir', 'label',
    'color', 'colour', 'binary-files', 'devices', 'directories', 'group-separator',
  ],
  files: 'f',
  filesLong: ['file', 'exclude-from'],
  pattern: { short: 'ef', long: ['regexp', 'file'] },
  recursive: /^-[^-]*[rR]|^--(?:recursive|dereference-recursive|directories=recurse)$/,
  follows: /^-[^-]*R|^--dereference-recursive$/,
};

const AWK: Spec = { values: 'Fv', valuesLong: ['assign', 'field-separator'], pattern: { short: 'fe', long: ['source', 'file'] } };

const SPECS = new Map<string, Spec>([
  ...[
    'echo', 'printf', 'true', 'false', ':', 'whoami', 'id', 'groups', 'logname', 'users', 'who', 'w', 'uname', 'arch',
    'nproc', 'uptime', 'free', 'basename', 'dirname', 'seq', 'expr', 'factor', 'printenv', 'pwd', 'locale', 'tty',
    'cal', 'ncal', 'sleep', 'jobs', 'wait', 'popd', 'dirs', 'umask', 'times', 'help', 'unalias', 'exit', 'return',
    'break', 'continue', 'shift', 'top', 'pstree', 'lsmod', 'sensors', 'sw_vers', 'lsb_release', 'getconf', 'yes',
    'last', 'ulimit', 'clear', 'tput', 'tr', 'numfmt', 'pgrep', 'pidof', 'lsblk', 'lscpu', 'lsusb', 'lspci', 'vmstat',
    'iostat', 'mpstat', 'netstat', 'lsof', 'df', 'which', 'whereis', 'type', 'history', 'hostnamectl', 'timedatectl',
    'localectl', 'sysctl', 'defaults', 'diskutil', 'brew', 'dpkg', 'dpkg-query', 'apt', 'apt-cache', 'rpm', 'route',
    'arp', 'stty', 'getent', 'docker', 'hostname', 'set', 'read', 'env', 'shopt', 'npm', 'pip', 'pip3', 'ps', 'ss',
    'mount', 'ifconfig', 'ip', 'systemctl', 'dmesg', 'locate', 'plocate', 'mlocate', 'mdfind', 'pathchk', 'tee',
    'alias', 'trap', 'eval', 'export', 'declare', 'typeset', 'compgen', 'local', 'readonly', 'unset',
  ].map((name): [string, Spec] => [name, NONE]),
  ['date', {
    noPositionals: true,
    values: 'dsI',
    valuesLong: ['date', 'set', 'iso-8601', 'rfc-3339'],
    files: 'rf',
    filesLong: ['file', 'reference'],
  }],
  ['journalctl', {
    noPositionals: true,
    values: 'uSUpotMgFnbcIqN',
    valuesLong: [
      'unit', 'user-unit', 'since', 'until', 'priority', 'output', 'identifier', 'grep', 'field', 'cursor',
      'after-cursor', 'machine', 'namespace', 'lines', 'boot',
    ],
    files: 'D',
    filesLong: ['directory', 'file', 'root', 'image'],
  }],
  ['cat', {}],
  ['tac', { values: 's', valuesLong: ['separator'] }],
  ['nl', { values: 'bdfhilnsvw' }],
  ['head', { values: 'nc', valuesLong: ['lines', 'bytes'] }],
  ['tail', { values: 'ncs', valuesLong: ['lines', 'bytes', 'pid', 'sleep-interval', 'max-unchanged-stats'] }],
  ['wc', { filesLong: ['files0-from'] }],
  ['ls', {
    values: 'IwT',
    valuesLong: [
      'ignore', 'hide', 'width', 'tabsize', 'block-size', 'format', 'sort', 'time', 'time-style', 'quoting-style',
      'indicator-style', 'color',
    ],
    recursive: /^-[^-]*R|^--recursive$/,
    follows: /^-[^-]*L|^--dereference$/,
  }],
  ['grep', GREP],
  ['egrep', GREP],
  ['fgrep', GREP],
  ['zgrep', GREP],
  ['rg', {
    values: 'ABCegjmMtTEr',
    valuesLong: [
      'after-context', 'before-context', 'context', 'regexp', 'glob', 'iglob', 'threads', 'max-count', 'max-columns',
      'type', 'type-not', 'encoding', 'sort', 'sortr', 'max-depth', 'max-filesize', 'color', 'colors', 'path-separator',
      'context-separator', 'replace', 'type-add', 'type-clear', 'engine',
    ],
    files: 'f',
    filesLong: ['file', 'ignore-file'],
    pattern: { short: 'ef', long: ['regexp', 'file'] },
    recursive: true,
    follows: /^-[^-]*L|^--follow$/,
  }],
  ['sed', {
    values: 'l',
    valuesLong: ['line-length'],
    files: 'f',
    filesLong: ['file'],
    pattern: { short: 'ef', long: ['expression', 'file'] },
  }],
  ['awk', AWK],
  ['gawk', AWK],
  ['mawk', AWK],
  ['nawk', AWK],
  ['yq', { pattern: { short: '', long: [] } }],
  ['look', { values: 't', pattern: { short: '', long: [] } }],
  ['du', {
    values: 'dBt',
    valuesLong: ['max-depth', 'block-size', 'threshold', 'exclude', 'time-style'],
    files: 'X',
    filesLong: ['exclude-from', 'files0-from'],
    recursive: true,
    follows: /^-[^-]*L|^--dereference$/,
  }],
  ['tree', { values: 'LPIHT', valuesLong: ['filelimit', 'timefmt', 'sort', 'charset'], recursive: true, follows: /^-[^-]*l$/ }],
  ['diff', {
    values: 'xIFLUCWD',
    valuesLong: [
      'label', 'horizon-lines', 'tabsize', 'ignore-matching-lines', 'exclude', 'show-function-line', 'color', 'palette',
      'unified', 'context', 'width', 'ifdef', 'line-format',
    ],
    files: 'X',
    filesLong: ['from-file', 'to-file', 'exclude-from'],
    recursive: /^-[^-]*r|^--recursive$/,
    follows: /^-[^-]*r|^--recursive$/,
  }],
  ['stat', { values: 'c', valuesLong: ['format', 'printf'] }],
  ['cut', { values: 'bcdf', valuesLong: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] }],
  ['paste', { values: 'd', valuesLong: ['delimiters'] }],
  ['column', {
    values: 'scoNRHOWE',
    valuesLong: [
      'separator', 'output-separator', 'table-columns', 'table-right', 'table-hide', 'table-order', 'table-wrap',
      'table-truncate', 'table-name', 'output-width',
    ],
  }],
  ['fold', { values: 'w', valuesLong: ['width'] }],
  ['fmt', { values: 'wpg', valuesLong: ['width', 'prefix', 'goal'] }],
  ['expand', { values: 't', valuesLong: ['tabs'] }],
  ['unexpand', { values: 't', valuesLong: ['tabs'] }],
  ['sort', {
    values: 'ktST',
    valuesLong: ['key', 'field-separator', 'buffer-size', 'temporary-directory', 'parallel', 'sort', 'batch-size'],
    filesLong: ['files0-from', 'random-source'],
  }],
  ['shuf', { values: 'in', valuesLong: ['input-range', 'head-count'], filesLong: ['random-source'] }],
  ['uniq', { values: 'fsw', valuesLong: ['skip-fields', 'skip-chars', 'check-chars'] }],
  ['cmp', { values: 'in', valuesLong: ['ignore-initial', 'bytes'] }],
  ['join', { values: 'tjoaev12' }],
  ['od', { values: 'AjNtwS', valuesLong: ['address-radix', 'skip-bytes', 'read-bytes', 'format', 'width', 'strings', 'endian'] }],
  ['hexdump', { values: 'ens', files: 'f' }],
  ['xxd', { values: 'cglosn' }],
  ['strings', { values: 'ntTes', valuesLong: ['bytes', 'radix', 'target', 'encoding', 'output-separator'] }],
  ['base64', { values: 'w', valuesLong: ['wrap'] }],
  ['base32', { values: 'w', valuesLong: ['wrap'] }],
  ['basenc', { values: 'w', valuesLong: ['wrap'] }],
  ['cksum', { values: 'al', valuesLong: ['algorithm', 'length'] }],
  ['b2sum', { values: 'l', valuesLong: ['length'] }],
  ['file', { values: 'eFP', valuesLong: ['exclude', 'separator', 'parameter'], files: 'fm', filesLong: ['files-from', 'magic-file'] }],
  ['iconv', { values: 'ft', valuesLong: ['from-code', 'to-code'] }],
  ['realpath', { filesLong: ['relative-to', 'relative-base'] }],
]);

/** The path operands of a read-only command, by its option grammar; unknown programs: every positional. */
export function operandsOf(program: string, args: readonly Word[]): Operands {
  if (program === 'find') return findOperands(args);
  if (program === 'test' || program === '[') return testOperands(args);
  if (program === 'jq') return jqOperands(args);
  if (program === 'git') return gitOperands(args);
  const spec = SPECS.get(program) ?? {};
  const out: Operands = { paths: [], recursive: [], followsLinks: false };
  if (spec.none) return out;
  if (program === 'shuf' && args.some((w) => w.value === '-e' || w.value === '--echo')) return out;
  const values = args.map((w) => w.value ?? '');
  const { positionals, options } = scanOptions(args, {
    short: `${spec.values ?? ''}${spec.files ?? ''}`,
    long: [...(spec.valuesLong ?? []), ...(spec.filesLong ?? [])],
  });
  const isFlag = (flag: string, short: string | undefined, long: readonly string[] | undefined) =>
    flag.startsWith('--') ? (long ?? []).includes(flag.slice(2)) : (short ?? '').includes(flag.slice(1));
  let patternGiven = false;
  for (const { flag, value } of options) {
    if (isFlag(flag, spec.pattern?.short, spec.pattern?.long)) patternGiven = true;
    if (!value) continue;
    if (isFlag(flag, spec.files, spec.filesLong)) out.paths.push(value);
    // An option this table does not know, given a path (`--config=/etc/x`): judged as one.
    else if (!isFlag(flag, spec.values, spec.valuesLong) && looksLikePath(value.value ?? '')) out.paths.push(value);
  }
  let files = spec.noPositionals ? [] : positionals;
  if (spec.pattern && !patternGiven) files = files.slice(1);
  if (spec === AWK) files = files.filter((w) => !/^[A-Za-z_]\w*=/.test(w.value ?? ''));
  out.paths.push(...files);
  out.options = options;
  // `grep -d recurse` (two words) is `grep -r`.
  const recurseOption = spec === GREP && options.some((o) => (o.flag === '-d' || o.flag === '--directories') && o.value?.value === 'recurse');
  const recursive =
    spec.recursive === true || recurseOption || (spec.recursive !== undefined && values.some((v) => (spec.recursive as RegExp).test(v)));
  if (recursive) {
    out.recursive = files.length > 0 ? files : [literalWord('.')];
    out.followsLinks = spec.follows !== undefined && values.some((v) => spec.follows!.test(v));
  }
  return out;
}

/** An option value that names a path rather than a number or a word. */
function looksLikePath(value: string): boolean {
  return value.startsWith('/') || value.startsWith('~') || value.startsWith('./') || value.startsWith('../') || value === '..';
}

const FIND_FILE_TESTS = new Set(['-newer', '-anewer', '-cnewer', '-samefile', '-files0-from']);

/** find: the starting points (before the first test) and the files some tests compare against. */
function findOperands(args: readonly Word[]): Operands {
  const out: Operands = { paths: [], recursive: [], followsLinks: false };
  let i = 0;
  for (; i < args.length && /^-[HLP]$|^-O\d$|^-D$/.test(args[i]!.value ?? ''); i++) {
    if (args[i]!.value === '-L') out.followsLinks = true;
    if (args[i]!.value === '-D') i++;
  }
  const starts: Word[] = [];
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v !== undefined && /^[-(!),]/.test(v) && v !== '-') break;
    starts.push(args[i]!);
  }
  for (; i < args.length; i++) {
    const v = args[i]!.value ?? '';
    if (v === '-follow') out.followsLinks = true;
    if ((FIND_FILE_TESTS.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) && args[i + 1]) out.paths.push(args[++i]!);
  }
  out.recursive = starts.length > 0 ? starts : [literalWord('.')];
  out.paths.push(...out.recursive);
  return out;
}

/** test / [: only the operands of the file tests (`-f FILE`, `FILE -nt FILE`); the rest are strings. */
function testOperands(args: readonly Word[]): Operands {
  const out: Operands = { paths: [], recursive: [], followsLinks: false };
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value ?? '';
    if (/^-[bcdefghkLOGprsSuwxN]$/.test(v) && args[i + 1] && args[i + 1]!.value !== ']') out.paths.push(args[++i]!);
    else if (/^-(?:nt|ot|ef)$/.test(v)) {
      if (args[i - 1]) out.paths.push(args[i - 1]!);
      if (args[i + 1]) out.paths.push(args[++i]!);
    }
  }
  return out;
}

/** jq: the filter comes first (unless -f gives a file); `--slurpfile/--rawfile NAME FILE` read files; `--args` ends the files. */
function jqOperands(args: readonly Word[]): Operands {
  const out: Operands = { paths: [], recursive: [], followsLinks: false };
  let filterGiven = false;
  let filesEnd = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value ?? '';
    if (filesEnd) continue;
    if (v === '--args' || v === '--jsonargs') filesEnd = true;
    else if (v === '--arg' || v === '--argjson') i += 2;
    else if (v === '--slurpfile' || v === '--rawfile') {
      if (args[i + 2]) out.paths.push(args[i + 2]!);
      i += 2;
    } else if (v === '--indent') i++;
    else if (v === '-f' || v === '--from-file' || v === '-L') {
      if (args[i + 1]) out.paths.push(args[i + 1]!);
      if (v !== '-L') filterGiven = true;
      i++;
    } else if (v.startsWith('-') && v !== '-') continue;
    else if (!filterGiven) filterGiven = true;
    else out.paths.push(word);
  }
  return out;
}

/**
 * git: `-C DIR` moves it; `diff --no-index` compares any two files. Pathspecs outside the repository are refused by
 * git itself, so other operands are paths only when written as absolute or home paths.
 */
function gitOperands(args: readonly Word[]): Operands {
  const out: Operands = { paths: [], recursive: [], followsLinks: false };
  const noIndex = args.some((w) => w.value === '--no-index');
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (v === '-C' && args[i + 1]) out.paths.push(args[++i]!);
    else if (v === undefined) out.paths.push(word);
    else if (!v.startsWith('-') && (noIndex || looksLikePath(v))) out.paths.push(word);
  }
  return out;
}

/**
 * Where `git -C DIR …` runs and looks for its repository: none without `-C`, else one folder. Security: git takes
 * each `-C` from the one before it (`-C sub -C evil` is sub/evil), so the folders are joined as git joins them — judged
 * one by one, the repository in sub/evil (its settings run programs) was never looked at. A folder not known before
 * the command runs is answered as such (a word without a value).
 */
export function gitDirectories(args: readonly Word[]): Word[] {
  let at: Word | undefined;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === undefined || !v.startsWith('-')) break;
    if (v !== '-C' || !args[i + 1]) continue;
    const dir = args[++i]!;
    if (dir.value === undefined || at?.value === undefined) at = at === undefined || dir.value?.startsWith('/') ? dir : { ...dir, value: undefined };
    else at = dir.value.startsWith('/') || dir.value.startsWith('~') ? dir : literalWord(posix.join(at.value, dir.value));
  }
  return at ? [at] : [];
}

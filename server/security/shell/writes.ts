import { MODIFIES_FILES } from './programs/writers.js';
import { scanOptions } from './options.js';
import { literalWord, type Word } from './words.js';

/**
 * The files a command writes, by its option grammar, for the check that refuses writes to the system's trust files
 * (named-paths.ts `trustFile`). Writes elsewhere are judged by the allowlist: anything not read-only asks anyway.
 */

export interface Writes {
  /** Paths written (a folder target stands for itself and for each source's name inside it). */
  targets: Word[];
  /** Names copied or moved into a folder target (`cp keys ~/.ssh/` writes `~/.ssh/keys`). */
  sourceNames: string[];
  /** What a move takes away from where it was (`mv`'s sources): changed as surely as the target. */
  moved?: Word[];
  /** Programs that rewrite the user database or sudo rules themselves (useradd, passwd, visudo). */
  accountTool?: boolean;
  /** `crontab FILE` / `crontab -`: installs a timetable of commands. */
  installsCrontab?: boolean;
  /** Whether the targets above are all it writes (false for a writer whose grammar this file does not know: tar, patch…). */
  known: boolean;
}

/**
 * Writers whose targets then say something else (a copy, a move, a link, an edit in place): what a later command
 * reads from such a file is theirs. Not rm, chmod, touch and the like: they change no file's instructions.
 */
export const REWRITES_CONTENT = new Set([
  'cp', 'mv', 'ln', 'install', 'rsync', 'dd', 'tee', 'sponge', 'truncate', 'sed', 'perl', 'awk', 'gawk',
]);

/** Programs whose whole purpose is to rewrite /etc/passwd, /etc/shadow, /etc/group or /etc/sudoers. */
const ACCOUNT_TOOLS = new Set([
  'useradd', 'usermod', 'userdel', 'adduser', 'deluser', 'passwd', 'chpasswd', 'chsh', 'chfn', 'gpasswd', 'groupadd',
  'groupmod', 'groupdel', 'addgroup', 'delgroup', 'vipw', 'vigr', 'visudo', 'newusers', 'pwconv', 'grpconv',
]);

/** Options (short letters / long names) that take a value, per program, so the value is not taken for a file. */
const VALUES: Record<string, { short: string; long: readonly string[] }> = {
  cp: { short: 'St', long: ['suffix', 'target-directory', 'backup', 'reflink', 'sparse', 'preserve', 'no-preserve'] },
  mv: { short: 'St', long: ['suffix', 'target-directory', 'backup'] },
  ln: { short: 'St', long: ['suffix', 'target-directory', 'backup'] },
  install: { short: 'gmoSt', long: ['group', 'mode', 'owner', 'suffix', 'target-directory', 'backup', 'context'] },
  rsync: { short: 'efT', long: ['rsh', 'filter', 'exclude', 'include', 'temp-dir', 'chmod', 'chown', 'rsync-path'] },
  truncate: { short: 'sr', long: ['size', 'reference'] },
  shred: { short: 'ns', long: ['iterations', 'size', 'random-source'] },
  chmod: { short: '', long: ['reference'] },
  chown: { short: '', long: ['reference', 'from'] },
  chgrp: { short: '', long: ['reference'] },
  tee: { short: '', long: ['output-error'] },
  sed: { short: 'efl', long: ['expression', 'file', 'line-length'] },
  touch: { short: 'dtr', long: ['date', 'reference', 'time'] },
  crontab: { short: 'uc', long: [] },
};

function positionalsOf(program: string, args: readonly Word[]): { positionals: Word[]; options: string[]; target?: Word } {
  const { positionals, options } = scanOptions(args, VALUES[program] ?? { short: '', long: [] });
  // cp/mv/ln/install -t DIR (touch -t is a time stamp): where every operand is copied to.
  const target = options.find((o) => o.flag === '--target-directory' || (o.flag === '-t' && program !== 'touch'))?.value;
  return { positionals, options: options.map((o) => o.word), ...(target ? { target } : {}) };
}

function baseName(word: Word): string | undefined {
  const v = word.value?.replace(/\/+$/, '');
  return v ? v.slice(v.lastIndexOf('/') + 1) : undefined;
}

/** What a command writes, as far as its words say. */
export function writesOf(program: string, args: readonly Word[]): Writes {
  const none: Writes = { targets: [], sourceNames: [], known: true };
  if (ACCOUNT_TOOLS.has(program)) return { ...none, accountTool: true };
  switch (program) {
    case 'mkdir':
    case 'rmdir':
    case 'tee':
    case 'sponge':
    case 'truncate':
    case 'shred':
    case 'touch':
    case 'rm':
    case 'unlink':
    case 'chattr':
    case 'setfacl':
      return { ...none, targets: positionalsOf(program, args).positionals.filter((w) => !/^[+-=][a-zA-Z]+$/.test(w.value ?? '')) };
    case 'chmod':
    case 'chown':
    case 'chgrp': {
      const { positionals, options } = positionalsOf(program, args);
      const byReference = options.some((o) => o.startsWith('--reference'));
      return { ...none, targets: byReference ? positionals : positionals.slice(1) };
    }
    case 'cp':
    case 'mv':
    case 'ln':
    case 'install':
    case 'rsync': {
      const { positionals, target } = positionalsOf(program, args);
      const names = (words: Word[]) => words.map(baseName).filter((n): n is string => !!n);
      const moved = (sources: Word[]) => (program === 'mv' ? { moved: sources } : {});
      if (target) return { targets: [target], sourceNames: names(positionals), known: true, ...moved(positionals) };
      if (positionals.length === 0) return none;
      const sources = positionals.slice(0, -1);
      return { targets: [positionals[positionals.length - 1]!], sourceNames: names(sources), known: true, ...moved(sources) };
    }
    case 'dd':
      return { ...none, targets: args.filter((w) => w.value?.startsWith('of=')).map((w) => literalWord(w.value!.slice(3))) };
    case 'sed': {
      const { positionals, options } = positionalsOf(program, args);
      if (!options.some((o) => /^-[^-]*i|^--in-place/.test(o))) return none;
      const scriptGiven = options.some((o) => /^-[^-]*[ef]|^--(?:expression|file)/.test(o));
      return { ...none, targets: scriptGiven ? positionals : positionals.slice(1) };
    }
    case 'crontab': {
      const { positionals, options } = positionalsOf(program, args);
      const verbs = options.filter((o) => /^-[lerin]$/.test(o));
      return { ...none, installsCrontab: verbs.length === 0 || positionals.length > 0 };
    }
    case 'perl': {
      // `perl -pi -e '…' FILE`: -i in a cluster edits the named files in place.
      const values = args.map((w) => w.value ?? '');
      const inPlace = values.some((v) => /^-[a-zA-Z]*i/.test(v));
      const script = values.findIndex((v) => /^-[a-zA-Z]*e$/.test(v));
      const files = args.filter((w, i) => !(w.value ?? '').startsWith('-') && i !== script + 1);
      return { ...none, targets: inPlace ? files : [], known: false };
    }
    case 'gawk':
    case 'awk': {
      // `gawk -i inplace '…' FILE` rewrites FILE.
      const values = args.map((w) => w.value ?? '');
      const inPlace = values.some((v, i) => (v === '-i' && values[i + 1] === 'inplace') || v === '--include=inplace');
      const files = args.filter((w) => !(w.value ?? '').startsWith('-') && w.value !== 'inplace').slice(1);
      return { ...none, targets: inPlace ? files : [] };
    }
    default:
      return MODIFIES_FILES.has(program) ? { ...none, known: false } : none;
  }
}

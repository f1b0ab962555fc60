import { criticalTarget, isBlockDevice, secretIn, type CriticalKind, type ShellPaths } from './named-paths.js';
import { NETWORK } from './programs/network.js';
import { criticalTree, destroyedBy, howSwept } from './sweeps.js';
import type { Word } from './words.js';

/**
 * The last line: commands that are never run, whoever approves. The allowlist is the mechanism; this list only
 * makes sure the worst cases are refused outright instead of being offered for approval.
 */

export type Catastrophe =
  | CriticalKind
  | 'permissions'
  | 'mkfs'
  | 'block-device-write'
  | 'fork-bomb'
  | 'shutdown'
  | 'kill-all'
  | 'exfiltration'
  | 'reverse-shell'
  | 'trust-file-write';

export interface Found {
  what: Catastrophe;
  /** For a person: what the command would do. */
  why: string;
}

/** Every string an argument may become, split where an unquoted expansion would split it. */
function tokens(args: Word[]): string[] {
  return args.flatMap((w) => w.guesses.flatMap((g) => (w.split ? g.split(/\s+/).filter(Boolean) : [g])));
}

/** The tokens that are not options (after `--`, everything). */
function operands(list: string[], valueOptions: RegExp = /^$/): string[] {
  const out: string[] = [];
  let end = false;
  for (let i = 0; i < list.length; i++) {
    const t = list[i]!;
    if (end || !t.startsWith('-') || t === '-') out.push(t);
    else if (t === '--') end = true;
    else if (valueOptions.test(t)) i++;
  }
  return out;
}

const WIPE_WHY: Record<CriticalKind, string> = {
  'wipe-root': 'the whole file system or a system folder',
  'wipe-home': 'a home folder',
  'wipe-workspace': 'one of the folders Pincer works in (or what holds it)',
};

function wipe(kind: CriticalKind, verb: string): Found {
  return { what: kind, why: `This ${verb} ${WIPE_WHY[kind]}.` };
}

const MKFS = /^(?:mkfs(?:\..+)?|mke2fs|mkswap|mkntfs|mkdosfs|mkexfatfs|mkfs_\w+|newfs(?:_\w+)?|wipefs)$/;
const PARTITIONERS =
  /^(?:fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted|blkdiscard|hdparm|sg_format|nvme|cryptsetup|badblocks|ddrescue|zerofree)$/;
const SHUTDOWN = /^(?:shutdown|reboot|halt|poweroff|kexec)$/;
const SYSTEMCTL_POWER =
  /^(?:poweroff|reboot|halt|kexec|suspend|hibernate|hybrid-sleep|suspend-then-hibernate|rescue|emergency|soft-reboot|isolate|default)$/;
const MATCH_ALL = /^(?:\.|\.\*|\.\+|\^|\$|\*|\^\.\*\$?|)$/;

/** Credentials handed to the network (`curl -d @~/.ssh/id_rsa`); key options that only authenticate are left out. */
function sendsSecret(program: string, args: Word[], paths: ShellPaths): string | undefined {
  const authOnly =
    program === 'curl'
      ? /^(?:--cert|--key|-E|--cacert|--capath|--proxy-cert|--proxy-key)$/
      : /^(?:-i|-F|-o|-S)$/; // ssh/scp/sftp/rsync: identity file, config file, options, control socket
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v !== undefined && authOnly.test(v)) {
      i++;
      continue;
    }
    if (v !== undefined && /^-o/.test(v) && /IdentityFile|CertificateFile/i.test(v + (args[i + 1]?.value ?? ''))) {
      if (v === '-o') i++;
      continue;
    }
    const what = secretIn(args[i]!, paths);
    if (what) return what;
  }
  return undefined;
}

/** One command as the checks below see it. */
interface Command {
  /** The basename (`/bin/rm` and `rm` are the same). */
  program: string;
  args: Word[];
  /** Every string the arguments may become (see tokens). */
  list: string[];
  paths: ShellPaths;
  cwdGuesses: readonly string[];
  start: string | undefined;
}

type Check = (command: Command) => Found | undefined;

const KERNEL_TRIGGER: Found = { what: 'shutdown', why: 'This writes to the kernel\'s emergency trigger (reboot, crash).' };

/** `rm -r` of `/`, a system folder, a home folder or a root. */
const deletesCritical: Check = ({ list, paths, cwdGuesses, start }) => {
  const recursive = list.some((t) => /^-[^-]*[rR]/.test(t) || t === '--recursive');
  if (!recursive) return undefined;
  for (const target of operands(list)) {
    const kind = criticalTarget(target, paths, cwdGuesses, start);
    if (kind) return wipe(kind, 'deletes');
  }
  return undefined;
};

/** `mv` of such a folder somewhere else: gone from where everything expects it. */
const movesCritical: Check = ({ list, paths, cwdGuesses }) => {
  const targetDir = list.some((t) => t === '-t' || t.startsWith('--target-directory'));
  const names = operands(list, /^(?:-t|-S|--suffix)$/);
  const sources = targetDir ? names : names.slice(0, -1);
  for (const source of sources) {
    const kind = criticalTarget(source, paths, cwdGuesses);
    if (kind) return wipe(kind, 'moves away');
  }
  return undefined;
};

/** `chmod -R`, `chown -R`… over such a folder. */
const repermissionsCritical: Check = ({ list, paths, cwdGuesses }) => {
  const recursive = list.some((t) => /^-[^-]*R/.test(t) || t === '--recursive');
  if (!recursive) return undefined;
  for (const target of operands(list)) {
    const kind = criticalTarget(target, paths, cwdGuesses);
    if (kind) return { what: 'permissions', why: `This changes ownership or permissions of every file in ${WIPE_WHY[kind]}.` };
  }
  return undefined;
};

/** `rsync --delete` into such a folder: everything there that the source lacks is deleted. */
const mirrorsOverCritical: Check = ({ list, paths, cwdGuesses }) => {
  if (!list.some((t) => /^--del/.test(t))) return undefined;
  const names = operands(list, /^(?:-e|--rsh|-f|--filter|--exclude|--include)$/);
  const destination = names[names.length - 1];
  const kind = destination === undefined ? undefined : criticalTarget(destination, paths, cwdGuesses);
  return kind ? wipe(kind, 'mirrors over (deleting everything else in)') : undefined;
};

/** `dd of=/dev/sda`, or `of=/proc/sysrq-trigger`. */
const ddOverDevice: Check = ({ list }) => {
  for (const t of list) {
    if (t.startsWith('of=') && isBlockDevice(t.slice(3))) return { what: 'block-device-write', why: 'This writes raw data over a disk.' };
    if (t === 'of=/proc/sysrq-trigger') return KERNEL_TRIGGER;
  }
  return undefined;
};

/** `cp x /dev/sda`, `shred /dev/sda`, `tee /proc/sysrq-trigger`: a file tool pointed at a disk or the kernel. */
const writesOverDevice: Check = ({ program, list }) => {
  const names = operands(list, /^(?:-s|--size|-n|--iterations|-t|-S|-m|-o|-g)$/);
  const written = program === 'cp' || program === 'install' ? names.slice(-1) : names;
  if (written.some((n) => isBlockDevice(n))) return { what: 'block-device-write', why: 'This writes over a disk.' };
  return written.includes('/proc/sysrq-trigger') ? KERNEL_TRIGGER : undefined;
};

/** `init 0`, `telinit 6`: the run levels that halt, reboot or drop to single user. */
const changesRunLevel: Check = ({ program, list }) =>
  list.some((t) => /^[0156sS]$/.test(t))
    ? { what: 'shutdown', why: `${program} ${list.join(' ')} shuts the machine down or restarts it.` }
    : undefined;

/** `systemctl poweroff`, `loginctl kill-user`… */
const powerVerb: Check = ({ program, list }) => {
  const powers = list.some(
    (t) => SYSTEMCTL_POWER.test(t) || (program === 'loginctl' && /^(?:terminate-user|kill-user|terminate-session|kill-session)$/.test(t)),
  );
  if (!powers) return undefined;
  return {
    what: 'shutdown',
    why: `${program} ${list.filter((t) => !t.startsWith('-')).join(' ')} powers off, restarts or suspends the machine.`,
  };
};

/** `kill -1` (every process of yours) and `kill 1` (init). */
const killsEveryoneOrInit: Check = ({ list }) => {
  const targets = killTargets(list);
  if (targets.includes('-1')) return { what: 'kill-all', why: 'kill -1 sends the signal to every process you own.' };
  if (targets.includes('1')) return { what: 'shutdown', why: 'Killing process 1 (init) brings the machine down.' };
  return undefined;
};

/** `pkill -u me`, `killall -r .`, `pkill systemd`. */
const killsByPattern: Check = ({ program, list }) => {
  if (list.some((t) => /^-[^-]*u/.test(t) || /^--(?:user|uid|euid)/.test(t) || t === '-U')) {
    return { what: 'kill-all', why: `${program} -u kills every process of a user.` };
  }
  const patterns = operands(list, /^(?:-s|--signal|-g|-G|-P|-t|-F|-n|-o|-O|--ns|--nslist|-r|--regexp|-y|-o)$/);
  if (patterns.some((p) => MATCH_ALL.test(p)) || list.some((t) => /^(?:-r|--regexp)$/.test(t) && list.some((p) => MATCH_ALL.test(p)))) {
    return { what: 'kill-all', why: `${program} with a pattern that matches every process.` };
  }
  if (patterns.some((p) => /^(?:init|systemd|launchd)$/.test(p))) {
    return { what: 'shutdown', why: `${program} ${patterns.join(' ')} kills the init system.` };
  }
  return undefined;
};

/** `nc -e /bin/sh host port`: a shell for whoever is on the other end. */
const netcatShell: Check = ({ program, list }) =>
  list.some((t) => /^-[^-]*[ec]/.test(t) || /^--(?:exec|sh-exec|lua-exec)/.test(t))
    ? { what: 'reverse-shell', why: `${program} -e/-c hands a shell to whoever is on the other end of the connection.` }
    : undefined;

/** `socat TCP:host:port EXEC:/bin/sh`. */
const socatShell: Check = ({ list }) =>
  list.some((t) => /(?:^|[,!])\s*(?:exec|system):/i.test(t))
    ? { what: 'reverse-shell', why: 'socat EXEC:/SYSTEM: connects a program (a shell) to a network connection.' }
    : undefined;

/** The checks of programs that are harmless with most arguments and catastrophic with some. */
const BY_PROGRAM = new Map<string, Check>([
  ['rm', deletesCritical],
  ['mv', movesCritical],
  ...['chmod', 'chown', 'chgrp', 'chattr', 'setfacl'].map((name): [string, Check] => [name, repermissionsCritical]),
  ['rsync', mirrorsOverCritical],
  ['dd', ddOverDevice],
  ...['cp', 'tee', 'shred', 'truncate', 'install', 'wipe'].map((name): [string, Check] => [name, writesOverDevice]),
  ['init', changesRunLevel],
  ['telinit', changesRunLevel],
  ['systemctl', powerVerb],
  ['loginctl', powerVerb],
  ['kill', killsEveryoneOrInit],
  ['pkill', killsByPattern],
  ['killall', killsByPattern],
  ['killall5', () => ({ what: 'kill-all', why: 'killall5 signals every process on the machine.' })],
  ...['nc', 'ncat', 'netcat', 'cryptcat', 'pwncat'].map((name): [string, Check] => [name, netcatShell]),
  ['socat', socatShell],
]);

/** mkfs and friends, diskutil erase, and a partitioner pointed at a disk (not just listing it). */
const erasesDisk: Check = ({ program, list }) => {
  if (MKFS.test(program)) return { what: 'mkfs', why: `${program} formats a disk or partition, erasing it.` };
  if (program === 'diskutil' && list.some((t) => /^(?:erase\w*|partitionDisk|zeroDisk|randomDisk|secureErase|reformat|apfs)$/i.test(t))) {
    return { what: 'mkfs', why: `diskutil ${list.find((t) => !t.startsWith('-'))} erases or repartitions a disk.` };
  }
  if (
    PARTITIONERS.test(program) &&
    list.some((t) => isBlockDevice(t.replace(/^[a-z]+=/, ''))) &&
    !list.some((t) => /^(?:-l|--list|-p|print|--print|-i|--info|--help)$/.test(t))
  ) {
    return { what: 'block-device-write', why: `${program} rewrites a disk's partitions or erases it.` };
  }
  return undefined;
};

const shutsDown: Check = ({ program }) =>
  SHUTDOWN.test(program) ? { what: 'shutdown', why: `${program} shuts the machine down or restarts it.` } : undefined;

/** A network tool given a credentials file to send. */
const exfiltrates: Check = ({ program, args, paths }) => {
  if (!NETWORK.has(program)) return undefined;
  const secret = sendsSecret(program, args, paths);
  return secret ? { what: 'exfiltration', why: `${program} would send ${secret} off this machine.` } : undefined;
};

/**
 * Is this one command catastrophic on its own? `program` is the basename (so `/bin/rm` and `rm` are the same),
 * `cwdGuesses` the folders a `cd` earlier in the line moved to (for relative targets), `start` the folder the
 * command starts in. The first check with something to say decides: a sweep over a critical tree, the program's own
 * check, then those by kind of program.
 */
export function catastrophe(program: string, args: Word[], paths: ShellPaths, cwdGuesses: readonly string[], start?: string): Found | undefined {
  const swept = sweptAway(program, args, paths, cwdGuesses.length > 0 ? cwdGuesses : start !== undefined ? [start] : []);
  if (swept) return swept;
  const command: Command = { program, args, list: tokens(args), paths, cwdGuesses, start };
  return BY_PROGRAM.get(program)?.(command) ?? erasesDisk(command) ?? shutsDown(command) ?? exfiltrates(command);
}

/**
 * A command that deletes, overwrites or empties each file of a sweep over `/`, a system folder, a home folder or a
 * root: `find ~ -type f -exec rm -f {} +`, `find / -print0 | xargs -0 shred -u`. `here` is where a relative tree
 * (`find .`) starts.
 */
function sweptAway(program: string, args: Word[], paths: ShellPaths, here: readonly string[]): Found | undefined {
  const destroyed = destroyedBy(program, args);
  for (const word of destroyed?.words ?? []) {
    if (!word.sweep?.broad) continue;
    const kind = criticalTree(word.sweep.tree, paths, here);
    if (kind) return { what: kind, why: `This ${destroyed!.verb} every file in ${WIPE_WHY[kind]} (${howSwept(word.sweep, program)}).` };
  }
  return undefined;
}

/** kill's process ids: what follows the signal option. */
function killTargets(list: string[]): string[] {
  let i = 0;
  let signal = false;
  while (i < list.length) {
    const t = list[i]!;
    if (t === '--') {
      i++;
      break;
    }
    if (t === '-s' || t === '-n') {
      i += 2;
      signal = true;
      continue;
    }
    if (t === '-l' || t === '-L') return [];
    if (t.startsWith('-') && !signal && t !== '-1') {
      signal = true;
      i++;
      continue;
    }
    if (t.startsWith('-') && !signal && t === '-1') {
      // `kill -1` alone is signal 1 with no process; `kill -1 -1` is signal 1 to everything.
      signal = true;
      i++;
      continue;
    }
    break;
  }
  return list.slice(i);
}

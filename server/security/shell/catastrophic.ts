import { criticalTarget, isBlockDevice, secretIn, type CriticalKind, type ShellPaths } from './paths.js';
import { NETWORK } from './programs.js';
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

/**
 * Is this one command catastrophic on its own? `program` is the basename (so `/bin/rm` and `rm` are the same),
 * `cwdGuesses` the folders a `cd` earlier in the line moved to (for relative targets), `start` the folder the
 * command starts in.
 */
export function catastrophe(program: string, args: Word[], paths: ShellPaths, cwdGuesses: readonly string[], start?: string): Found | undefined {
  const swept = sweptAway(program, args, paths, cwdGuesses.length > 0 ? cwdGuesses : start !== undefined ? [start] : []);
  if (swept) return swept;
  const list = tokens(args);
  switch (program) {
    case 'rm': {
      const recursive = list.some((t) => /^-[^-]*[rR]/.test(t) || t === '--recursive');
      if (!recursive) break;
      for (const target of operands(list)) {
        const kind = criticalTarget(target, paths, cwdGuesses, start);
        if (kind) return wipe(kind, 'deletes');
      }
      break;
    }
    case 'mv': {
      const targetDir = list.some((t) => t === '-t' || t.startsWith('--target-directory'));
      const names = operands(list, /^(?:-t|-S|--suffix)$/);
      const sources = targetDir ? names : names.slice(0, -1);
      for (const source of sources) {
        const kind = criticalTarget(source, paths, cwdGuesses);
        if (kind) return wipe(kind, 'moves away');
      }
      break;
    }
    case 'chmod':
    case 'chown':
    case 'chgrp':
    case 'chattr':
    case 'setfacl': {
      const recursive = list.some((t) => /^-[^-]*R/.test(t) || t === '--recursive');
      if (!recursive) break;
      for (const target of operands(list)) {
        const kind = criticalTarget(target, paths, cwdGuesses);
        if (kind) return { what: 'permissions', why: `This changes ownership or permissions of every file in ${WIPE_WHY[kind]}.` };
      }
      break;
    }
    case 'rsync': {
      if (!list.some((t) => /^--del/.test(t))) break;
      const names = operands(list, /^(?:-e|--rsh|-f|--filter|--exclude|--include)$/);
      const destination = names[names.length - 1];
      const kind = destination === undefined ? undefined : criticalTarget(destination, paths, cwdGuesses);
      if (kind) return wipe(kind, 'mirrors over (deleting everything else in)');
      break;
    }
    case 'dd':
      for (const t of list) {
        if (t.startsWith('of=') && isBlockDevice(t.slice(3))) {
          return { what: 'block-device-write', why: 'This writes raw data over a disk.' };
        }
        if (t === 'of=/proc/sysrq-trigger') {
          return { what: 'shutdown', why: 'This writes to the kernel\'s emergency trigger (reboot, crash).' };
        }
      }
      break;
    case 'cp':
    case 'tee':
    case 'shred':
    case 'truncate':
    case 'install':
    case 'wipe': {
      const names = operands(list, /^(?:-s|--size|-n|--iterations|-t|-S|-m|-o|-g)$/);
      const written = program === 'cp' || program === 'install' ? names.slice(-1) : names;
      if (written.some((n) => isBlockDevice(n))) return { what: 'block-device-write', why: 'This writes over a disk.' };
      if (written.includes('/proc/sysrq-trigger')) {
        return { what: 'shutdown', why: 'This writes to the kernel\'s emergency trigger (reboot, crash).' };
      }
      break;
    }
    case 'init':
    case 'telinit':
      if (list.some((t) => /^[0156sS]$/.test(t))) {
        return { what: 'shutdown', why: `${program} ${list.join(' ')} shuts the machine down or restarts it.` };
      }
      break;
    case 'systemctl':
    case 'loginctl':
      if (
        list.some(
          (t) =>
            SYSTEMCTL_POWER.test(t) || (program === 'loginctl' && /^(?:terminate-user|kill-user|terminate-session|kill-session)$/.test(t)),
        )
      ) {
        return {
          what: 'shutdown',
          why: `${program} ${list.filter((t) => !t.startsWith('-')).join(' ')} powers off, restarts or suspends the machine.`,
        };
      }
      break;
    case 'kill': {
      const targets = killTargets(list);
      if (targets.includes('-1')) return { what: 'kill-all', why: 'kill -1 sends the signal to every process you own.' };
      if (targets.includes('1')) return { what: 'shutdown', why: 'Killing process 1 (init) brings the machine down.' };
      break;
    }
    case 'pkill':
    case 'killall': {
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
      break;
    }
    case 'killall5':
      return { what: 'kill-all', why: 'killall5 signals every process on the machine.' };
    case 'nc':
    case 'ncat':
    case 'netcat':
    case 'cryptcat':
    case 'pwncat':
      if (list.some((t) => /^-[^-]*[ec]/.test(t) || /^--(?:exec|sh-exec|lua-exec)/.test(t))) {
        return { what: 'reverse-shell', why: `${program} -e/-c hands a shell to whoever is on the other end of the connection.` };
      }
      break;
    case 'socat':
      if (list.some((t) => /(?:^|[,!])\s*(?:exec|system):/i.test(t))) {
        return { what: 'reverse-shell', why: 'socat EXEC:/SYSTEM: connects a program (a shell) to a network connection.' };
      }
      break;
  }
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
  if (SHUTDOWN.test(program)) return { what: 'shutdown', why: `${program} shuts the machine down or restarts it.` };
  if (NETWORK.has(program)) {
    const secret = sendsSecret(program, args, paths);
    if (secret) return { what: 'exfiltration', why: `${program} would send ${secret} off this machine.` };
  }
  return undefined;
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

import type { Word } from './words.js';

/**
 * Programs that run another command (`sudo rm …`, `timeout 5 rm …`, `xargs rm`): the wrapped command is found
 * by skipping the wrapper's own options and classified like any other, so wrapping never hides it.
 */
export interface WrapperSpec {
  /** Runs the command as another user: always asks. */
  kind?: 'privilege';
  /** Harmless in itself (time, nice, timeout): a read-only command stays allowed when wrapped. */
  transparent?: boolean;
  /** Short options taking a value (attached or as the next word). */
  valueShort?: string;
  valueLong?: readonly string[];
  /** Options whose value is a shell script (`su -c`, `env -S`, `flock -c`). */
  scriptShort?: string;
  scriptLong?: readonly string[];
  /** Options that only look a command up (`command -v`). */
  lookupShort?: string;
  lookupLong?: readonly string[];
  /** Options that act on a running process instead of starting a command (`ionice -p`). */
  noCommandShort?: string;
  /** Options that write files. */
  badShort?: string;
  badLong?: readonly string[];
  badWhy?: string;
  /** NAME=value words before the command set its environment. */
  assignments?: boolean;
  /** Operands before the command (timeout's duration, flock's lock file). */
  lead?: number;
  /** Option syntax this check does not follow: always asks; every tail of the words is checked for catastrophes. */
  generic?: boolean;
  /** The words are joined and run by `sh -c` (watch). */
  joinsScript?: boolean;
  /** Without a command: harmless (default) or asks. */
  alone?: 'allow' | 'ask';
  /** Why a non-transparent wrapper asks. */
  why?: string;
}

const PRIVILEGE: WrapperSpec = { kind: 'privilege', generic: true };
const GENERIC: WrapperSpec = { generic: true };

export const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    'sudo',
    {
      kind: 'privilege',
      assignments: true,
      valueShort: 'ugChpDrtTUR',
      valueLong: ['user', 'group', 'host', 'prompt', 'close-from', 'chdir', 'role', 'type', 'command-timeout', 'other-user', 'chroot'],
      noCommandShort: 'lvKV',
    },
  ],
  ['doas', { kind: 'privilege', valueShort: 'uC' }],
  ['pkexec', { kind: 'privilege', valueLong: ['user'] }],
  [
    'su',
    {
      kind: 'privilege',
      generic: true,
      scriptShort: 'c',
      scriptLong: ['command', 'session-command'],
      valueShort: 'sgGw',
      valueLong: ['shell', 'group', 'supp-group', 'whitelist-environment'],
    },
  ],
  ['runuser', { ...PRIVILEGE, scriptShort: 'c', scriptLong: ['command'] }],
  ['sg', PRIVILEGE],
  ['newgrp', PRIVILEGE],
  ['setpriv', PRIVILEGE],
  ['capsh', PRIVILEGE],
  ['sudoedit', PRIVILEGE],
  [
    'env',
    {
      transparent: true,
      assignments: true,
      valueShort: 'uC',
      valueLong: ['unset', 'chdir'],
      scriptShort: 'S',
      scriptLong: ['split-string'],
    },
  ],
  ['command', { transparent: true, lookupShort: 'vV' }],
  ['builtin', { transparent: true }],
  ['exec', { transparent: true, valueShort: 'a' }],
  [
    'time',
    {
      transparent: true,
      valueShort: 'f',
      valueLong: ['format'],
      badShort: 'o',
      badLong: ['output', 'append'],
      badWhy: 'writes its report to a file',
    },
  ],
  ['nice', { transparent: true, valueShort: 'n', valueLong: ['adjustment'] }],
  ['timeout', { transparent: true, valueShort: 'sk', valueLong: ['signal', 'kill-after'], lead: 1, alone: 'ask' }],
  ['stdbuf', { transparent: true, valueShort: 'ioe', valueLong: ['input', 'output', 'error'] }],
  ['ionice', { transparent: true, valueShort: 'cn', noCommandShort: 'pPu' }],
  ['taskset', { transparent: true, lead: 1, noCommandShort: 'p', alone: 'ask' }],
  ['unbuffer', { transparent: true }],
  ['caffeinate', { transparent: true, valueShort: 'tw' }],
  ['busybox', { transparent: true }],
  ['toybox', { transparent: true }],
  [
    'xargs',
    {
      transparent: true,
      valueShort: 'adEILnPs',
      badShort: 'P',
      badLong: ['max-procs'],
      badWhy: 'runs many copies at once',
      valueLong: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    },
  ],
  ['watch', { transparent: true, joinsScript: true, valueShort: 'nq', valueLong: ['interval'] }],
  ['nohup', { why: 'keeps the command running after the call ends and writes nohup.out' }],
  ['setsid', { why: 'detaches the command from the call, so a timeout cannot stop it' }],
  ['chrt', { lead: 1, noCommandShort: 'p', why: 'changes the scheduling priority of' }],
  [
    'flock',
    {
      scriptShort: 'c',
      scriptLong: ['command'],
      valueShort: 'wE',
      valueLong: ['timeout', 'wait', 'conflict-exit-code'],
      lead: 1,
      why: 'takes a lock file to run',
    },
  ],
  ['script', { ...GENERIC, scriptShort: 'c', scriptLong: ['command'] }],
  ...[
    'strace', 'ltrace', 'perf', 'valgrind', 'catchsegv', 'chroot', 'nsenter', 'unshare', 'firejail', 'bwrap', 'fakeroot',
    'eatmydata', 'proxychains', 'proxychains4', 'torsocks', 'tsocks', 'faketime', 'systemd-run', 'dbus-run-session',
    'xvfb-run', 'entr', 'parallel', 'tmux', 'screen', 'at', 'batch', 'nsjail', 'sandbox-exec', 'coproc',
  ].map((name): [string, WrapperSpec] => [name, GENERIC]),
]);

/**
 * Options that hand a command line to a shell later: `ssh -o ProxyCommand=…`, `rsync -e …`, `tar --to-command=…`,
 * `zip -TT …`. The strings are returned so a catastrophe in them is refused like one typed directly.
 */
export function commandsInOptions(program: string, args: Word[]): string[] {
  const out: string[] = [];
  const values = args.map((w) => w.value ?? '');
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const next = values[i + 1] ?? '';
    switch (program) {
      case 'ssh':
      case 'scp':
      case 'sftp': {
        const option = v === '-o' ? next : v.startsWith('-o') ? v.slice(2) : '';
        const m = /^\s*(?:ProxyCommand|LocalCommand|RemoteCommand|KnownHostsCommand)\s*[= ]\s*(.*)$/is.exec(option);
        if (m) out.push(m[1]!);
        break;
      }
      case 'rsync':
        if (v === '-e' || v === '--rsh' || v === '--rsync-path') out.push(next);
        else if (/^--(?:rsh|rsync-path)=/.test(v)) out.push(v.slice(v.indexOf('=') + 1));
        else if (/^-e./.test(v)) out.push(v.slice(2));
        break;
      case 'tar':
      case 'gtar':
      case 'bsdtar':
        if (/^--(?:to-command|use-compress-program|info-script|new-volume-script|rsh-command)=/.test(v)) {
          out.push(v.slice(v.indexOf('=') + 1));
        } else if (
          /^--(?:to-command|use-compress-program|info-script|new-volume-script|rsh-command)$/.test(v) || v === '-I' || v === '-F'
        ) {
          out.push(next);
        } else if (/^--checkpoint-action=(?:exec|sh)=/.test(v)) {
          out.push(v.replace(/^--checkpoint-action=(?:exec|sh)=/, ''));
        }
        break;
      case 'zip':
        if (v === '-TT' || v === '--unzip-command') out.push(next);
        else if (v.startsWith('--unzip-command=')) out.push(v.slice('--unzip-command='.length));
        break;
      case 'git':
        if (v.startsWith('--upload-pack=') || v.startsWith('--receive-pack=') || v.startsWith('--exec=')) {
          out.push(v.slice(v.indexOf('=') + 1));
        }
        break;
    }
  }
  return out.filter((s) => s.trim() !== '');
}

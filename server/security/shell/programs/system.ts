import { type Word } from '../words.js';
import { type Check, checkFlags, type CheckResult, dynamicArgument, flags, OK, onlyWords, optionsOnly, problem, short, unsure, verbs } from './check.js';

/** Programs that report on the machine (processes, services, clock, logs, disks); their other verbs change it. */

function checkDate(args: Word[]): CheckResult {
  const { problem: p, positionals } = checkFlags(args, 'date', {
    valueShort: 'dfr',
    valueLong: ['date', 'file', 'reference'],
    badShort: 's',
    badLong: ['set'],
    badWhy: 'sets the system clock',
  });
  if (p) return { problem: p };
  if (positionals.some((w) => !w.value?.startsWith('+'))) {
    return problem('not-read-only', 'date with a date argument sets the system clock.');
  }
  return OK;
}

function checkHostname(args: Word[]): CheckResult {
  for (const word of args) {
    if (unsure(word)) return dynamicArgument('hostname', word);
    if (!/^-[aAdfiIsy]+$|^--(?:alias|all-fqdns|domain|fqdn|long|ip-address|all-ip-addresses|short|yp|nis)$/.test(word.value!)) {
      return problem('not-read-only', 'hostname with this argument changes the machine\'s name.');
    }
  }
  return OK;
}

/** `ps e` (BSD style) prints every process's environment: the gateway's token included. */
function checkPs(args: Word[]): CheckResult {
  for (const word of args) {
    if (word.value === undefined) return dynamicArgument('ps', word);
    const v = word.value;
    if ((!v.startsWith('-') && /e/.test(v)) || /^-[^-]*E/.test(v) || /environ|\benv\b/i.test(v)) {
      return problem('dangerous-flag', 'ps e shows the environment of every process, including secrets such as the gateway\'s token.');
    }
  }
  return OK;
}

const DOCKER_LISTING =
  /^(?:-[aqs]+|--(?:all|quiet|size|no-trunc|digests|format(?:=.*)?|filter(?:=.*)?|last(?:=\d+)?|latest)|-n|\d+|[\w{}.:=" -]+)$/;

/** docker only lists (ps, images, version, info); global options can point it at another daemon or config. */
function checkDocker(args: Word[]): CheckResult {
  const verb = args[0]?.value;
  if (verb === undefined || !['ps', 'images', 'version', 'info'].includes(verb)) {
    return problem(
      'not-read-only',
      `docker ${short(args.map((w) => w.text).join(' '))} starts, changes or reaches into containers (often as root).`,
    );
  }
  for (const word of args.slice(1)) {
    if (unsure(word)) return dynamicArgument('docker', word);
    if (!DOCKER_LISTING.test(word.value!)) {
      return problem('not-read-only', `docker ${verb} ${short(word.text)} is not a plain listing.`);
    }
  }
  return OK;
}

const SYSTEMCTL_OPTIONS = new RegExp(
  String.raw`^(?:--no-pager|--all|-a|--user|--system|--failed|--type=\S+|-t|--state=\S+|-l|--full|--plain|--no-legend|-q|--quiet|-n\d*|` +
    String.raw`--lines=\d+|-o|--output=\S+|--property=\S+|-p)$`,
);
const SYSTEMCTL_REPORTS = new RegExp(
  String.raw`^(?:status|list-units|list-unit-files|list-timers|list-sockets|list-dependencies|list-jobs|is-active|is-enabled|is-failed|` +
    String.raw`is-system-running|show|cat|get-default)$`,
);

/** systemctl only reports: status, list-*, is-*, show, cat (a unit's file). */
function checkSystemctl(args: Word[]): CheckResult {
  let verb: string | undefined;
  for (const word of args) {
    if (unsure(word)) return dynamicArgument('systemctl', word);
    const v = word.value!;
    if (v.startsWith('-')) {
      if (SYSTEMCTL_OPTIONS.test(v)) continue;
      return problem('dangerous-flag', `systemctl ${v} is not a plain status query.`);
    }
    if (verb === undefined) {
      verb = v;
      if (!SYSTEMCTL_REPORTS.test(v)) {
        return problem('not-read-only', `systemctl ${v} starts, stops or changes services or the machine.`);
      }
    } else if (!/^[\w@:.\\-]+$/.test(v)) {
      return problem('not-read-only', `systemctl ${verb} ${short(word.text)} is not a unit name.`);
    }
  }
  return OK;
}

export const SYSTEM_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['ps', checkPs],
  ['hostnamectl', verbs(/^(?:status|show|hostname)$/, 'changes the machine\'s name or settings', /^(?:status|show|hostname|--\w[\w-]*)$/)],
  ['timedatectl', verbs(/^(?:status|show|list-timezones|timesync-status|show-timesync)$/, 'changes the clock or time zone')],
  ['localectl', verbs(/^(?:status|list-locales|list-keymaps|list-x11-keymap-\w+)$/, 'changes the locale')],
  ['sysctl', optionsOnly(/^(?:-[anNbehx]+|[\w.]+)$/, 'changes a kernel setting')],
  ['defaults', verbs(/^(?:read|read-type|domains|find)$/, 'changes settings')],
  ['diskutil', verbs(/^(?:list|info|activity|listFilesystems)$/, 'changes or erases disks')],
  ['stty', optionsOnly(/^(?:-a|-g|--all|--save|size)$/, 'changes terminal settings')],
  ['getent', (args) =>
    args.some((w) => /shadow/.test(w.value ?? w.text))
      ? problem('not-read-only', 'getent shadow prints password hashes.')
      : OK],
  ['docker', checkDocker],
  ['date', checkDate],
  ['hostname', checkHostname],
  [
    'dmesg',
    flags({
      valueShort: 'flFsn',
      badShort: 'cCDEn',
      badLong: ['clear', 'read-clear', 'console-off', 'console-on', 'console-level'],
      badWhy: 'clears the kernel log or changes console logging',
    }),
  ],
  [
    'journalctl',
    flags({
      valueShort: 'uSUpotDMgF',
      valueLong: [
        'unit', 'user-unit', 'since', 'until', 'priority', 'output', 'identifier', 'directory', 'file', 'grep', 'field',
        'cursor', 'after-cursor', 'machine', 'namespace',
      ],
      badLong: [
        'vacuum-size', 'vacuum-time', 'vacuum-files', 'rotate', 'flush', 'sync', 'relinquish-var',
        'smart-relinquish-var', 'setup-keys', 'update-catalog',
      ],
      badWhy: 'deletes or rewrites the journal',
    }),
  ],
  ['mount', onlyWords(/^-l$/, 'mounts or changes a file system')],
  ['systemctl', checkSystemctl],
];

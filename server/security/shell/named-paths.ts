import { posix } from 'node:path';
import { secretFileMatch } from '../sensitive-files.js';
import { isWithin } from '../within.js';
import { globToRegExp, hasGlob, type Word } from './words.js';

/**
 * What a shell word names, read from its text (and the values it may take), before anything on disk is resolved:
 * Pincer's data folder, where secrets live, the folders whose loss is a catastrophe, the files the system trusts.
 * Where an operand really leads once links are followed is operand-places.ts; a file tool's path is path-guard.ts.
 */

/** What the shell analysis knows about the machine's folders. */
export interface ShellPaths {
  home: string;
  /** Folders the tools may work in; wiping one (or what holds one) is catastrophic. */
  roots: readonly string[];
  /** Pincer's own data (tokens, history): no command may name it. */
  protectedPaths: readonly string[];
  /** Pincer's own code and bundled plugins: commands may read there, never write. */
  readOnlyPaths: readonly string[];
  /** Most entries a recursive read's folders may hold before it is too large to check for secrets (secret-walk.ts). */
  scanLimit?: number;
  /** Most names one line's globs may read from the disk (operand-places.ts, GLOB_NAMES_PER_LINE). */
  globNamesLimit?: number;
}

/** `/a//b/./c/` → `/a/b/c`; `/` stays `/`. */
export function normalizeAbsolute(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 ? normal.replace(/\/+$/, '') : normal;
}

/** Strings inside a word that name paths: the word itself and what follows `=`, `@` or `:` (`of=/dev/sda`, `-d @file`). */
function pathPieces(value: string): string[] {
  const pieces = [value];
  for (const m of value.matchAll(/[=@:,]([^=@:,]+)/g)) pieces.push(m[1]!);
  return pieces;
}

/** Absolute paths a value may stand for; a relative one is read from each root (the command runs inside one). */
export function absoluteCandidates(value: string, paths: ShellPaths, bases: readonly string[] = paths.roots): string[] {
  const out: string[] = [];
  for (const piece of pathPieces(value)) {
    if (piece === '' || piece.startsWith('-') && piece === value) continue;
    if (piece.startsWith('/')) out.push(normalizeAbsolute(piece));
    else if (piece === '~' || piece.startsWith('~/')) out.push(normalizeAbsolute(paths.home + piece.slice(1)));
    else for (const base of bases) out.push(normalizeAbsolute(posix.resolve(base, piece)));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Pincer's data folder

/** A folder name distinctive enough to recognise in a relative path (".pincer", "pincer-data"), not "data". */
function distinctiveName(folder: string): string | undefined {
  const name = posix.basename(folder);
  return /pincer/i.test(name) || (name.startsWith('.') && name.length > 2) ? name : undefined;
}

/**
 * Security: the data folder holds the gateway's token and call history; a command that names it (directly, via
 * `~`/`$HOME`, a relative path from a root, a glob, or inside a script string) could read or replace them.
 */
export function namesProtectedPath(word: Word, paths: ShellPaths, cwdGuesses: readonly string[] = []): 'names' | 'reaches' | undefined {
  let reaches = false;
  const bases = [...paths.roots, ...cwdGuesses];
  for (const folder of paths.protectedPaths) {
    // Case-insensitive: on macOS and Windows disks `~/.PINCER` is the same folder.
    const lower = folder.toLowerCase();
    const name = distinctiveName(folder)?.toLowerCase();
    const fromHome = isWithin(folder, paths.home) && folder !== paths.home ? lower.slice(paths.home.length + 1) : undefined;
    const texts = [...word.guesses, word.text];
    for (const text of texts) {
      const t = text.toLowerCase();
      if (t.includes(lower)) return 'names';
      if (fromHome && [`~/${fromHome}`, `$home/${fromHome}`, `\${home}/${fromHome}`].some((s) => t.includes(s))) return 'names';
      for (const candidate of absoluteCandidates(text, paths, bases)) {
        const c = candidate.toLowerCase();
        if (isWithin(c, lower)) return 'names';
        if (hasGlob(c) && globReaches(c, lower)) {
          // `/*` lists the folder that holds the data; `/home/*/.pin*` names it.
          if (c.split('/').length >= lower.split('/').length) return 'names';
          reaches = true;
        }
      }
      // A glob names the folder only when it spells some of the name itself (`.pin*`); a bare `*` matches anything.
      const telling = (segment: string) => segment.replace(/\[[^\]]*\]|[*?]/g, '').length >= 3;
      if (name && t.split(/[/=@:,\s'"]+/).some((segment) => segment === name || (hasGlob(segment) && telling(segment) && globToRegExp(segment).test(name)))) {
        return 'names';
      }
    }
  }
  return reaches ? 'reaches' : undefined;
}

/** Does a glob path match the folder or something inside it? */
function globReaches(glob: string, folder: string): boolean {
  const segments = glob.split('/');
  const target = folder.split('/');
  for (let i = 1; i <= Math.min(segments.length, target.length); i++) {
    if (!globToRegExp(segments.slice(0, i).join('/')).test(target.slice(0, i).join('/'))) return false;
  }
  return segments.length >= target.length || globToRegExp(segments.join('/')).test(target.slice(0, segments.length).join('/'));
}

/** Is this path a folder that holds Pincer's data (so reading it recursively reads the data)? */
export function holdsProtectedPath(word: Word, paths: ShellPaths, cwdGuesses: readonly string[] = []): boolean {
  for (const text of word.guesses) {
    for (const candidate of absoluteCandidates(text === '' ? '.' : text, paths, [...paths.roots, ...cwdGuesses])) {
      if (paths.protectedPaths.some((folder) => isWithin(folder, candidate))) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Secrets

/** Matched case-insensitively, as file_read matches (sensitive-files.ts): `.ENV` is `.env` on a case-insensitive disk. */
const SECRET_PATHS: ReadonlyArray<[RegExp, string]> = ([
  [/(?:^|\/)id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?$/, 'an SSH private key'],
  [/(?:^|\/)\.ssh(?:\/(?!.*\.pub$)|$)/, 'SSH keys and settings'],
  [/(?:^|\/)\.aws(?:\/|$)/, 'AWS credentials'],
  [/(?:^|\/)\.gnupg(?:\/|$)/, 'GnuPG private keys'],
  [/(?:^|\/)\.password-store(?:\/|$)/, 'the password store'],
  [/(?:^|\/)\.(?:netrc|git-credentials|pgpass|my\.cnf|vault-token|pypirc|npmrc)$/, 'saved credentials'],
  [/(?:^|\/)\.docker\/config\.json$/, 'Docker registry credentials'],
  [/(?:^|\/)\.kube\/config$/, 'Kubernetes credentials'],
  [/(?:^|\/)\.config\/(?:gh|hub|gcloud)(?:\/|$)/, 'cloud and GitHub tokens'],
  [/(?:^|\/)\.azure(?:\/|$)/, 'Azure credentials'],
  [/(?:^|\/)\.(?:terraform\.d|cargo|gem)\/credentials/, 'saved credentials'],
  [/(?:^|\/)(?:credentials|client_secrets?[^/]*|service[-_]?account[^/]*)\.json$/, 'a credentials file'],
  [/(?:^|\/)secrets?\.(?:ya?ml|json|toml|env|txt)$/, 'a secrets file'],
  [/^\/proc\/[^/]*\/(?:fd|fdinfo|map_files|root|cwd)(?:\/|$)/, 'another program\'s open files'],
  [/^\/etc\/(?:shadow|gshadow|sudoers)(?:-|$|\.d\/)/, 'system password hashes or sudo rules'],
  [/^\/etc\/ssh\/ssh_host_[^/]*_key$/, 'the machine\'s SSH host key'],
  [/^\/proc\/(?:[^/]*\/)*(?:environ|mem)$/, 'another program\'s environment or memory (Pincer\'s token lives there)'],
  [/(?:^|\/)\.env(?:\.(?!example$|sample$|template$|dist$|defaults$)[^/]*)?$/, 'a .env file of secrets'],
  [/(?:^|\/)[^/.][^/]*\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ppk)$/, 'a private key or key store'],
  [/(?:^|\/)\.(?:bash|zsh|python|mysql|psql|node_repl|sqlite)_history$/, 'shell history'],
  [/(?:^|\/)(?:Library\/Keychains|\.local\/share\/keyrings)(?:\/|$)/, 'the keychain'],
  [/(?:^|\/)(?:logins\.json|key[34]\.db|cookies\.sqlite|Login Data|Cookies)$/, 'saved browser passwords or cookies'],
] as Array<[RegExp, string]>).map(([pattern, what]) => [new RegExp(pattern.source, 'i'), what]);

/** Where secrets usually live, to test globs against (`cat ~/.ss*\/id*`). */
function secretSamples(home: string): string[] {
  return [
    `${home}/.ssh/id_rsa`, `${home}/.ssh/id_ed25519`, `${home}/.ssh/id_ecdsa`, `${home}/.ssh/config`,
    `${home}/.aws/credentials`, `${home}/.netrc`, `${home}/.git-credentials`, `${home}/.docker/config.json`,
    `${home}/.kube/config`, `${home}/.npmrc`, `${home}/.pypirc`, `${home}/.pgpass`, `${home}/.gnupg/secring.gpg`,
    `${home}/.config/gh/hosts.yml`, `${home}/.bash_history`, '/etc/shadow', '/etc/sudoers', '/proc/1/environ',
    '/proc/self/environ',
  ];
}
const SECRET_BASENAMES = [
  '.env', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'x.pem', 'x.key', '.netrc', '.git-credentials', '.npmrc',
  'credentials.json',
];

export const BLOCK_DEVICE = new RegExp(
  String.raw`^\/dev\/(?:[shv]d[a-z]+\d*|xvd[a-z]+\d*|nvme\d+n\d+(?:p\d+)?|mmcblk\d+(?:p\d+)?|r?disk\d+(?:s\d+)?|md\d+|dm-\d+|loop\d+|` +
    String.raw`nbd\d+|zram\d+|sr\d+|mapper\/.+|disk\/.+|root|mem|kmem|port)$`,
);
const BLOCK_PREFIX = /^\/dev\/(?:[shv]d|xvd|nvme|mmcblk|r?disk|md|dm-|loop|nbd|mapper\/|disk\/)/;

/** A raw disk or memory device (`/dev/sda`, `/dev/nvme0n1p2`, `/dev/sd*`). */
export function isBlockDevice(path: string): boolean {
  const normal = path.startsWith('/') ? normalizeAbsolute(path) : path;
  if (BLOCK_DEVICE.test(normal)) return true;
  return hasGlob(normal) && BLOCK_PREFIX.test(normal.replace(/[*?[].*$/, ''));
}

/** What secret a word points at, if any (`~/.ssh/id_rsa`, `.env`, `/proc/1/environ`, a raw disk). */
export function secretIn(word: Word, paths: ShellPaths, cwdGuesses: readonly string[] = []): string | undefined {
  for (const text of [...word.guesses, word.text]) {
    const candidates = [text, ...absoluteCandidates(text, paths, [...paths.roots, ...cwdGuesses])];
    for (const candidate of candidates) {
      for (const [pattern, what] of SECRET_PATHS) if (pattern.test(candidate)) return what;
      if (isBlockDevice(candidate)) return 'a raw disk';
    }
    if (word.glob) {
      const absolute = text.startsWith('/') ? [text] : [];
      for (const glob of absolute) {
        const re = globToRegExp(normalizeAbsolute(glob));
        if (secretSamples(paths.home).some((sample) => re.test(sample))) return 'files that may hold secrets';
      }
      const last = text.split('/').pop() ?? '';
      // A bare `*` would match almost anything; only a glob with some letters of its own is telling.
      if (hasGlob(last) && /[A-Za-z0-9._-]/.test(last.replace(/\[[^\]]*\]/g, ''))) {
        const re = globToRegExp(last);
        if (SECRET_BASENAMES.some((name) => re.test(name))) return 'files that may hold secrets';
      }
    }
  }
  return undefined;
}

/**
 * What secret a file is, by its real path: the shell's own list and the one file_read uses (sensitive-files.ts), so a
 * command reads no file the file tools would ask about. For files a command reads without naming them (a recursive
 * read); a named operand also goes through secretIn, which reads the word's spelling.
 */
export function secretFile(real: string): string | undefined {
  for (const [pattern, what] of SECRET_PATHS) if (pattern.test(real)) return what;
  return secretFileMatch(real)?.what;
}

/** Secrets mentioned anywhere inside a piece of text (a script given to an interpreter). */
export function secretInText(text: string, paths: ShellPaths): string | undefined {
  const expanded = text.replace(/(^|[\s'"=(,])~\//g, `$1${paths.home}/`).replace(/\$\{?HOME\}?\//g, `${paths.home}/`);
  for (const token of expanded.split(/[\s'"`()<>;|&,=]+/)) {
    if (!token) continue;
    for (const [pattern, what] of SECRET_PATHS) if (pattern.test(token)) return what;
  }
  return undefined;
}

/** Does reading this folder recursively read secrets (a home folder, `/`, `/etc`, `/proc`)? */
export function holdsSecrets(word: Word, paths: ShellPaths, cwdGuesses: readonly string[] = []): boolean {
  for (const text of word.guesses) {
    for (const candidate of absoluteCandidates(text === '' ? '.' : text, paths, [...paths.roots, ...cwdGuesses])) {
      if (isWithin(paths.home, candidate) || /^\/(?:etc|proc|root|home|Users|var)?$/.test(candidate)) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Catastrophic targets

const SYSTEM_DIRS = new Set([
  '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/proc', '/root', '/run',
  '/sbin', '/srv', '/sys', '/usr', '/var', '/snap', '/mnt', '/media', '/Users', '/System', '/Library',
  '/Applications', '/Volumes', '/private', '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/local', '/usr/share',
  '/usr/local/bin', '/var/lib', '/etc/ssh', '/boot/efi',
]);

export type CriticalKind = 'wipe-root' | 'wipe-home' | 'wipe-workspace';

/** A glob that matches any name (`*`, `.*`, `?*`): it picks nothing out. */
export function matchesEveryName(glob: string): boolean {
  return /^(?:\*+|\.\*|\?\*|\*\?|\[[^\]]*\]\*)$/.test(glob);
}

/** Is this folder `/`, a system folder, a home folder (or what holds one) or a root (or what holds one)? */
export function criticalFolder(dir: string, paths: ShellPaths): CriticalKind | undefined {
  if (dir === '/' || dir === '' || SYSTEM_DIRS.has(dir)) return 'wipe-root';
  if (dir === paths.home || /^\/(?:home|Users)\/[^/]+$/.test(dir) || isWithin(paths.home, dir)) return 'wipe-home';
  if (paths.roots.some((root) => isWithin(root, dir))) return 'wipe-workspace';
  return undefined;
}

/**
 * Would removing (moving, re-owning) this path wipe `/`, a system folder, a home folder or a root? A glob counts as
 * the folder it empties (`/*`, `~/*`). Relative paths count against folders a `cd` in the same line named; with no
 * `cd`, and a `start` folder given, against where the command starts, when they name it whole (`.`, `..`, `*`) —
 * not `*.o`, which there only picks some files.
 */
export function criticalTarget(value: string, paths: ShellPaths, cwdGuesses: readonly string[], start?: string): CriticalKind | undefined {
  if (value === '') return undefined;
  const wholeFromStart = (v: string) => v.split('/').every((segment) => !hasGlob(segment) || matchesEveryName(segment));
  const candidates = value.startsWith('/')
    ? [normalizeAbsolute(value)]
    : cwdGuesses.length > 0
      ? cwdGuesses.map((base) => normalizeAbsolute(posix.resolve(base, value)))
      : start !== undefined && wholeFromStart(value)
        ? [normalizeAbsolute(posix.resolve(start, value))]
        : [];
  for (const path of candidates) {
    const segments = path.split('/');
    const globAt = segments.findIndex((s) => hasGlob(s));
    const dir = globAt === -1 ? path : segments.slice(0, globAt).join('/') || '/';
    const kind = criticalFolder(dir, paths);
    if (kind) return kind;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Files the system trusts

/**
 * Security: files that decide who may log in, who is root, what name resolves where, and what runs at boot or on a
 * timer. A write to one is a takeover of the machine (a new root user, an SSH key, a cron job, a service), so it is
 * refused outright rather than offered for approval. Reading them keeps its own rules.
 */
const TRUST_FILES: ReadonlyArray<[RegExp, string]> = [
  [/^\/etc\/(?:passwd|shadow|gshadow|group|subuid|subgid)-?$/, 'the system\'s user and password database'],
  [/^\/etc\/(?:sudoers|doas\.conf)$|^\/etc\/sudoers\.d(?:\/|$)/, 'the sudo rules (who may act as root)'],
  [/^\/etc\/hosts$/, 'the host name table (where names such as localhost resolve)'],
  [/^\/etc\/(?:pam\.d|security)(?:\/|$)|^\/etc\/pam\.conf$/, 'the login modules (PAM)'],
  [
    /^\/(?:etc|run|usr\/lib|lib|usr\/local\/lib)\/systemd(?:\/|$)|^\/etc\/init\.d(?:\/|$)|^\/etc\/rc\.local$/,
    'service definitions that start at boot',
  ],
  [/\/\.config\/systemd(?:\/|$)/, 'user services that start at login'],
  [/^\/etc\/(?:crontab|anacrontab)$|^\/etc\/cron\.[a-z]+(?:\/|$)|^\/var\/spool\/cron(?:\/|$)/, 'scheduled jobs (cron)'],
  [/(?:^|\/)\.ssh\/(?:authorized_keys2?|rc|environment)$/, 'the SSH keys allowed to log in'],
  [/^\/etc\/ssh\/sshd_config(?:\.d(?:\/|$)|$)/, 'the SSH server\'s settings'],
  [/^\/etc\/ld\.so\.(?:preload|conf)$|^\/etc\/ld\.so\.conf\.d(?:\/|$)/, 'the libraries loaded into every program'],
  [/^\/etc\/(?:profile|bash\.bashrc|environment|zshenv|zsh\/zshenv)$|^\/etc\/profile\.d(?:\/|$)/, 'every user\'s login shell start-up'],
];

/** Trust files a glob may name even where they do not exist yet (`> /etc/sudoer?` on a machine without sudo). */
const TRUST_SAMPLES = [
  '/etc/passwd', '/etc/shadow', '/etc/group', '/etc/gshadow', '/etc/sudoers', '/etc/hosts', '/etc/crontab',
  '/etc/ld.so.preload', '/etc/profile', '/etc/environment', '/etc/doas.conf', '/etc/rc.local',
];

/** The trust file a written glob could name, if any. */
export function trustFileGlob(glob: string, home: string): string | undefined {
  const re = globToRegExp(normalizeAbsolute(glob));
  const sample = [...TRUST_SAMPLES, `${home}/.ssh/authorized_keys`].find((path) => re.test(path));
  return sample === undefined ? undefined : trustFile(sample);
}

/** What trusted system file a written path is (after `~` and symlinks), if any. */
export function trustFile(real: string): string | undefined {
  const normal = normalizeAbsolute(real);
  for (const [pattern, what] of TRUST_FILES) if (pattern.test(normal)) return what;
  return undefined;
}

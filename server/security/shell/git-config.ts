import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';

/**
 * Security: a repository's own configuration can make even a "read-only" git command run a program — `git status`
 * runs `core.fsmonitor`, `git diff` runs `diff.external` and textconv drivers, `git log` runs `gpg.program` when
 * signatures are shown, clean filters run while the index is refreshed — and a repository inside a root is not
 * trusted input (a cloned project, an unpacked archive). Such settings make the command ask, naming the setting.
 * The user's own ~/.gitconfig and the system's are the owner's and are not judged here.
 */

export interface HostileSetting {
  /** The setting as git names it, e.g. `core.fsmonitor`, `diff.evil.textconv`. */
  key: string;
  value: string;
  /** The file it was found in. */
  file: string;
}

/** Settings that name a program git runs, or pull in another file that could. */
const RUNS_PROGRAM = [
  /^core\.(?:fsmonitor|pager|editor|sshcommand|askpass|gitproxy|hookspath|alternaterefscommand)$/,
  /^diff\.external$/,
  /^diff\..+\.(?:textconv|command)$/,
  /^filter\..+\.(?:clean|smudge|process)$/,
  /^merge\..+\.driver$/,
  /^pager\./,
  /^(?:sequence|interactive)\.(?:editor|difffilter)$/,
  /^gpg\.(?:.+\.)?program$/,
  /^credential\.(?:.+\.)?helper$/,
  /^(?:web\.browser|browser\..+\.(?:cmd|path)|man\..+\.(?:cmd|path)|difftool\..+\.cmd|mergetool\..+\.cmd)$/,
  /^remote\..+\.(?:uploadpack|receivepack|vcs)$/,
  /^(?:include|includeif\..+)\.path$/,
  /^uploadpack\.packobjectshook$/,
];

/** `core.fsmonitor = true/false` only switches the built-in monitor; any other value is a program. */
const BOOLEAN = /^(?:true|false|yes|no|on|off|1|0|)$/i;

/** The first setting in the repository that `dir` is in (walking up as git does) that makes git run a program. */
export function hostileGitSetting(dir: string): HostileSetting | undefined {
  const repository = findRepository(dir);
  if (!repository) return undefined;
  for (const file of repositoryConfigFiles(repository.gitDir)) {
    const text = readConfigText(file);
    if (text === undefined) continue;
    for (const { key, value } of parseGitConfig(text)) {
      if (key === 'alias' || key.startsWith('alias.')) {
        if (value.trimStart().startsWith('!')) return { key, value, file };
        continue;
      }
      if (!RUNS_PROGRAM.some((re) => re.test(key))) continue;
      if (key === 'core.fsmonitor' && BOOLEAN.test(value.trim())) continue;
      if (key === 'core.hookspath' && value.trim() === '') continue;
      return { key, value, file };
    }
  }
  return undefined;
}

/** A repository's own configuration files, as git reads them: its config, then a linked worktree's (`commondir`), then config.worktree. */
export function repositoryConfigFiles(gitDir: string): string[] {
  const files = [posix.join(gitDir, 'config')];
  // A linked worktree keeps its settings in the main repository's folder (`commondir`).
  const common = readConfigText(posix.join(gitDir, 'commondir'))?.trim();
  if (common) files.push(posix.join(posix.resolve(gitDir, common), 'config'));
  files.push(posix.join(gitDir, 'config.worktree'));
  return files;
}

/** A repository git finds from a folder: where its internals are, and its work tree (none for a bare one). */
export interface Repository {
  gitDir: string;
  workTree: string | undefined;
}

/** The repository git would use from `start`: `.git` as a folder, a `.git` file saying `gitdir: …`, or a bare one. */
export function findRepository(start: string): Repository | undefined {
  let dir = start;
  for (;;) {
    const dotGit = posix.join(dir, '.git');
    try {
      const stat = statSync(dotGit);
      if (stat.isDirectory()) return { gitDir: dotGit, workTree: dir };
      if (stat.isFile()) {
        const pointer = /^gitdir:\s*(.+)$/m.exec(readConfigText(dotGit) ?? '')?.[1]?.trim();
        if (pointer) return { gitDir: posix.resolve(dir, pointer), workTree: dir };
      }
    } catch {
      // No .git here: is the folder itself a (bare) repository? git takes it as one too.
      if (isGitDir(dir)) return { gitDir: dir, workTree: undefined };
    }
    const parent = posix.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A repository folder without a work tree (`git clone --bare`): HEAD, objects/ and refs/ side by side. */
export function isGitDir(dir: string): boolean {
  try {
    const has = (name: string, folder: boolean) => {
      const stat = statSync(posix.join(dir, name));
      return folder ? stat.isDirectory() : stat.isFile();
    };
    return has('HEAD', false) && has('objects', true) && has('refs', true);
  } catch {
    return false;
  }
}

/**
 * Security: read on the gateway's only thread, so only a regular file of a sane size is read — a named pipe put where
 * a repository's config goes held every caller for as long as nobody wrote into it.
 */
export function readConfigText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: opening a pipe never waits for a writer; fstat then says what was opened.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_CONFIG_BYTES) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** More than any real git config or pointer file holds. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Git's configuration syntax, enough to find keys: `[section]`, `[section "sub"]`, the old `[section.sub]`, `key =
 * value` and bare `key` (true); `#` and `;` comments; quoted values; `\` line continuations. Section and key names
 * are case-insensitive (lower-cased here); subsection names are kept as written.
 */
export function parseGitConfig(text: string): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [];
  let section = '';
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      const [, name, sub] = header;
      section = sub !== undefined ? `${name!.toLowerCase()}.${sub.replace(/\\(.)/g, '$1')}` : name!.toLowerCase();
      const rest = header[3]!.trim();
      if (rest === '' || rest.startsWith('#') || rest.startsWith(';')) continue;
      // `[core] fsmonitor = x` on one line: git accepts it.
      out.push(entry(section, rest));
      continue;
    }
    out.push(entry(section, line));
  }
  return out;
}

function entry(section: string, line: string): { key: string; value: string } {
  const eq = line.indexOf('=');
  const name = (eq === -1 ? line : line.slice(0, eq)).trim().toLowerCase();
  const value = eq === -1 ? 'true' : unquote(line.slice(eq + 1).trim());
  return { key: section ? `${section}.${name}` : name, value };
}

/** Drops a trailing comment outside quotes and the quotes themselves. */
function unquote(value: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) {
      out += value[++i];
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && (c === '#' || c === ';')) {
      break;
    } else {
      out += c;
    }
  }
  return out.trim();
}

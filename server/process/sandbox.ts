import { execFile, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, dirname, join, posix } from 'node:path';
import { realOrResolved } from '../util/real-path.js';
import type { SandboxWrapper } from './runner.js';

/**
 * The second wall behind the policy (docs/security.md, its OS sandbox section): `run_shell` and `run_python` run inside
 * an OS sandbox, so a wrong "allow" is harmless. The policy decides what a command may do; the sandbox makes sure it
 * can do nothing else.
 *
 * Linux: bubblewrap. The process sees the system's programs and libraries read-only, a handful of /etc files that
 * programs need (never /etc whole: it holds /etc/shadow), the interpreter's own prefix read-only where it lives
 * elsewhere (a pyenv under the home folder), the roots read-write and a private /tmp — and nothing else: no other home folders, no Pincer data folder, no other processes (its own PID namespace, so no
 * /proc/<pid>/environ holding the gateway's token), and no network unless the call was allowed to reach it.
 *
 * macOS: `sandbox-exec` with a generated profile (same shape: deny by default, read system folders, read-write the
 * roots and the scratch folder, network only when allowed). It cannot be tested on Linux, so it is kept small.
 *
 * Elsewhere, or where the trial run fails (user namespaces switched off on a desktop), there is no sandbox: the
 * gateway says so at start, in /health and in the dashboard, and runs on the policy alone.
 */

export interface SandboxSupport {
  kind: 'bubblewrap' | 'sandbox-exec' | 'none';
  /** Why there is none, or what limits the one there is, in a sentence for a person. */
  detail: string;
}

/** What one call may reach beyond the system folders. */
export interface SandboxScope {
  /** Folders the call may read and write (the roots). */
  readWrite: readonly string[];
  /** Extra paths it may only read (outside the roots, as an approval or a rule allowed). */
  readOnly?: readonly string[];
  /** Extra paths it may write (outside the roots, as an approval or a rule allowed); missing ones are skipped. */
  writable?: readonly string[];
  /** Folders never visible, even inside a root (Pincer's data folder); a granted path inside one is not bound. */
  hidden: readonly string[];
  /** Folders kept read-only even inside a writable one (Pincer's own code and bundled plugins). */
  locked?: readonly string[];
  /** Whether it may open network connections. */
  network: boolean;
  /**
   * The program's own files, read-only, bound last: visible even inside a hidden folder (a plugin's folder, its
   * build and its API shim lie in the data folder). Only what Pincer itself chose, never a path a caller asked for.
   */
  program?: readonly string[];
}

/** System folders every program needs, read-only. */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];

/**
 * The /etc entries programs need, and why: name resolution (resolv.conf, hosts, nsswitch.conf, gai.conf, host.conf),
 * TLS certificates (ssl, ca-certificates, pki), the dynamic linker (ld.so.*), the `alternatives` links that name
 * python3/java/editors, the time zone, what system this is (os-release, debian_version…), terminal and readline
 * settings (terminfo, inputrc), the system-wide git settings and MIME types. Not passwd/shadow/group (a minimal
 * passwd with the current user alone is given instead), not sudoers, not ssh keys.
 */
const ETC_ENTRIES = [
  'resolv.conf', 'hosts', 'nsswitch.conf', 'gai.conf', 'host.conf', 'ssl', 'ca-certificates', 'ca-certificates.conf',
  'pki', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'localtime', 'timezone', 'os-release',
  'lsb-release', 'debian_version', 'redhat-release', 'alpine-release', 'hostname', 'issue', 'shells', 'terminfo',
  'inputrc', 'gitconfig', 'mime.types', 'magic', 'locale.alias', 'locale.conf', 'default/locale', 'protocols',
  'services', 'bash.bashrc', 'profile', 'environment',
];

let detected: SandboxSupport | undefined;

/** What `detectSandbox` found, asked once per process (every gateway in it shares the answer). */
export function sandboxSupport(): SandboxSupport {
  return (detected ??= detectSandbox());
}

/** Finds out whether a sandbox can run here, with a trial run (namespaces may be switched off). */
export function detectSandbox(platform: NodeJS.Platform = process.platform): SandboxSupport {
  if (process.env.PINCER_SANDBOX === 'off') return { kind: 'none', detail: 'The sandbox is switched off (PINCER_SANDBOX=off).' };
  if (platform === 'darwin') {
    return onPath('sandbox-exec')
      ? { kind: 'sandbox-exec', detail: 'macOS sandbox-exec with a generated profile.' }
      : { kind: 'none', detail: 'sandbox-exec was not found.' };
  }
  if (platform !== 'linux') return { kind: 'none', detail: `No OS sandbox is known for ${platform}.` };
  const bwrap = onPath('bwrap');
  if (!bwrap) return { kind: 'none', detail: 'bubblewrap (bwrap) is not installed; install the "bubblewrap" package to enable it.' };
  const trial = spawnSync(bwrap, [...systemBinds(), '--proc', '/proc', '--dev', '/dev', '--unshare-all', '--die-with-parent', '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 5_000,
  });
  if (trial.status !== 0) {
    const why = trial.stderr?.toString().trim().split('\n')[0] || (trial.error?.message ?? `exit ${trial.status}`);
    return { kind: 'none', detail: `bubblewrap is installed but cannot start a sandbox here (${why}); user namespaces may be switched off.` };
  }
  return { kind: 'bubblewrap', detail: 'bubblewrap: system folders read-only, the roots, a private /tmp, no network unless allowed.' };
}

/** Builds the wrapper that starts a command inside the sandbox, for the scope of one call. */
export class Sandbox {
  readonly #bwrap: string | undefined;

  constructor(readonly support: SandboxSupport) {
    this.#bwrap = support.kind === 'bubblewrap' ? onPath('bwrap') : undefined;
    // Asking Python where it lives takes a while (a pyenv shim runs a script first): started now, off the start-up
    // path, once per process; a call that comes before the answer asks itself.
    if (support.kind !== 'none') probing ??= probePython().then((answer) => (prefixes ??= interpreterPrefixes(answer)));
  }

  get available(): boolean {
    return this.support.kind !== 'none';
  }

  get #interpreterPrefixes(): string[] {
    if (this.support.kind === 'none') return [];
    return (prefixes ??= interpreterPrefixes(probePythonSync()));
  }

  /** The wrapper for one call, or undefined when there is no sandbox here. */
  wrapper(scope: SandboxScope): SandboxWrapper | undefined {
    if (this.support.kind === 'bubblewrap' && this.#bwrap) {
      const bwrap = this.#bwrap;
      return (argv, { cwd, scratch }) => [bwrap, ...this.bubblewrapArgs(scope, cwd, scratch), '--', ...argv];
    }
    if (this.support.kind === 'sandbox-exec') {
      return (argv, { scratch }) => ['sandbox-exec', '-p', this.macProfile(scope, scratch), '--', ...argv];
    }
    return undefined;
  }

  /** bwrap's arguments, in order: later mounts go on top of earlier ones. */
  bubblewrapArgs(scope: SandboxScope, cwd: string, scratch: string | undefined): string[] {
    const args = [...systemBinds()];
    for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
    const identity = scratch ? minimalIdentity(scratch) : undefined;
    if (identity) args.push('--ro-bind', identity.passwd, '/etc/passwd', '--ro-bind', identity.group, '/etc/group');
    args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
    for (const prefix of this.#interpreterPrefixes) args.push('--ro-bind-try', prefix, prefix);
    // Security: each path is bound from where it really leads, read at every start. bwrap follows a link on the
    // host, so a granted or declared folder that is a link (or lies under one) into the data folder showed that
    // folder inside, token and database included. A hidden folder is matched as given and as it really is.
    const hidden = scope.hidden.map(realOrResolved);
    const named = [...scope.hidden, ...hidden];
    const placed = (paths: readonly string[] | undefined) =>
      (paths ?? []).flatMap((path) => {
        const real = realOrResolved(path);
        return named.some((dir) => within(path, dir) || within(real, dir)) ? [] : [{ path, real }];
      });
    const readOnly = placed(scope.readOnly);
    const readWrite = placed(scope.readWrite);
    const writable = placed(scope.writable);
    for (const { path, real } of readOnly) args.push('--ro-bind-try', real, path);
    for (const { path, real } of readWrite) args.push('--bind', real, path);
    for (const { path, real } of writable) args.push('--bind-try', real, path);
    if (scratch) args.push('--bind', scratch, scratch);
    // Where a real folder shows up inside a bind: at its own path, or under the link that leads to it.
    const inside = (dir: string, bind: { path: string; real: string }) => join(bind.path, posix.relative(bind.real, dir));
    // Security: Pincer's code under a writable root is bound again read-only on top (after every writable bind, so
    // a grant inside it is covered too): a command that rewrote a bundled plugin would run as Pincer, unasked.
    const lockedAt = new Map<string, string>(); // where inside → what is bound there
    for (const dir of (scope.locked ?? []).map(realOrResolved)) {
      for (const bind of [...readWrite, ...writable]) {
        if (within(dir, bind.real)) lockedAt.set(inside(dir, bind), dir);
        else if (within(bind.real, dir)) lockedAt.set(bind.path, bind.real);
      }
    }
    for (const [at, dir] of lockedAt) args.push('--ro-bind-try', dir, at);
    // Security: Pincer's data folder (tokens, database) stays out of sight even when a root holds it.
    const covered = new Set<string>();
    for (const dir of hidden) for (const bind of [...readWrite, ...readOnly, ...writable]) if (within(dir, bind.real)) covered.add(inside(dir, bind));
    for (const dir of covered) args.push('--tmpfs', dir);
    for (const path of scope.program ?? []) args.push('--ro-bind-try', path, path);
    args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
    if (!scope.network) args.push('--unshare-net');
    // As root, bwrap would keep every capability inside; a sandboxed command needs none.
    if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
    // Security: everything not bound above is a read-only void — no home folder, nothing written beside the roots.
    args.push('--remount-ro', '/', '--die-with-parent', '--chdir', cwd);
    return args;
  }

  /** A deny-by-default sandbox-exec profile with the same shape as the Linux sandbox. */
  macProfile(scope: SandboxScope, scratch: string | undefined): string {
    const quote = (path: string) => `"${path.replace(/["\\]/g, '\\$&')}"`;
    const writable = [...scope.readWrite, ...(scope.writable ?? []), ...(scratch ? [scratch] : [])];
    return [
      '(version 1)',
      '(deny default)',
      '(allow process-exec process-fork signal sysctl-read mach-lookup iokit-open)',
      '(allow file-read* (subpath "/usr") (subpath "/bin") (subpath "/sbin") (subpath "/System") (subpath "/Library")',
      '  (subpath "/opt/homebrew") (subpath "/private/etc") (subpath "/dev") (literal "/"))',
      ...this.#interpreterPrefixes.map((p) => `(allow file-read* (subpath ${quote(p)}))`),
      ...(scope.readOnly ?? []).map((p) => `(allow file-read* (subpath ${quote(p)}))`),
      ...writable.map((p) => `(allow file-read* file-write* (subpath ${quote(p)}))`),
      ...(scope.locked ?? []).map((p) => `(deny file-write* (subpath ${quote(p)}))`),
      ...scope.hidden.map((p) => `(deny file-read* file-write* (subpath ${quote(p)}))`),
      // The last matching rule wins: the program's own files stay readable inside a hidden folder.
      ...(scope.program ?? []).map((p) => `(allow file-read* (subpath ${quote(p)}))`),
      '(allow file-write* (literal "/dev/null") (literal "/dev/tty"))',
      ...(scope.network ? ['(allow network*)'] : []),
    ].join('\n');
  }
}

/** /usr, /bin, /lib… read-only; a merged-/usr symlink (`/bin -> usr/bin`) is recreated as the same symlink. */
function systemBinds(): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    let stat;
    try {
      stat = lstatSync(folder);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
    else if (stat.isDirectory()) args.push('--ro-bind', folder, folder);
  }
  return args;
}

/** What `python3` on the PATH says of itself: its path, and `sys.prefix`, `sys.base_prefix`, its real executable. */
interface PythonAnswer {
  path: string;
  lines: string[];
}

/** Where the interpreters live, found once per process (every gateway in it shares the answer). */
let prefixes: string[] | undefined;
let probing: Promise<unknown> | undefined;

const PYTHON_PROBE = 'import sys, os; print(sys.prefix); print(sys.base_prefix); print(os.path.realpath(sys.executable))';

function probePythonSync(): PythonAnswer | undefined {
  const path = onPath('python3');
  if (!path) return undefined;
  const probe = spawnSync(path, ['-I', '-c', PYTHON_PROBE], { encoding: 'utf8', timeout: 10_000 });
  return { path, lines: probe.status === 0 ? probe.stdout.trim().split('\n') : [] };
}

function probePython(): Promise<PythonAnswer | undefined> {
  const path = onPath('python3');
  if (!path) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const child = execFile(path, ['-I', '-c', PYTHON_PROBE], { encoding: 'utf8', timeout: 10_000 }, (error, stdout) =>
      resolve({ path, lines: error ? [] : stdout.trim().split('\n') }),
    );
    // A short-lived command (`pincer call`) need not wait for the answer to exit.
    child.unref();
    for (const stream of [child.stdout, child.stderr, child.stdin]) (stream as { unref?: () => void } | null)?.unref?.();
  });
}

/**
 * Where the interpreters live when not under /usr: Python's prefix (a pyenv or a virtualenv under the home folder),
 * the whole pyenv when `python3` on the PATH is its shim (the shim runs pyenv's own scripts), and Node's prefix.
 */
function interpreterPrefixes(python: PythonAnswer | undefined): string[] {
  const found = new Set<string>();
  if (python) {
    const pyenv = /^(.*\/\.pyenv)\//.exec(python.path)?.[1];
    if (pyenv) found.add(pyenv);
    const [prefix, base, executable] = python.lines;
    for (const p of [prefix, base, executable ? dirname(dirname(executable)) : undefined]) if (p) found.add(p);
  }
  // Node's prefix (bin/node under it); the desktop app's runtime is Electron, whose files sit beside its binary.
  const runtime = realpathSync(process.execPath);
  found.add(process.versions.electron ? dirname(runtime) : dirname(dirname(runtime)));
  return [...found].filter((p) => !SYSTEM_FOLDERS.some((system) => within(p, system)) && p !== '/');
}

/**
 * A passwd and group with the current user alone, so `whoami` and `id` answer without the real ones; written into the
 * call's scratch folder, so they go with it.
 */
function minimalIdentity(scratch: string): { passwd: string; group: string } | undefined {
  try {
    const user = userInfo();
    const dir = join(scratch, '.sandbox');
    mkdirSync(dir, { mode: 0o700 });
    const passwd = join(dir, 'passwd');
    const group = join(dir, 'group');
    writeFileSync(passwd, `${user.username}:x:${user.uid}:${user.gid}::${user.homedir}:${user.shell ?? '/bin/sh'}\n`, { mode: 0o444 });
    writeFileSync(group, `${user.uid === 0 ? 'root' : user.username}:x:${user.gid}:\n`, { mode: 0o444 });
    return { passwd, group };
  } catch {
    return undefined;
  }
}

/** The first executable of that name on the PATH. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (lstatSync(candidate).isFile() || lstatSync(candidate).isSymbolicLink()) {
        realpathSync(candidate);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`) || posix.relative(folder, path) === '';
}

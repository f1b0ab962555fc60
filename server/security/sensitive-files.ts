/**
 * Which files inside a root still need a person: files that a program runs (or reads commands from) without
 * being asked, and files that hold secrets. Matched case-insensitively on every segment of the resolved path, so
 * `.GIT/hooks` on a case-insensitive disk and a nested repository's `sub/.git/config` are both caught.
 */

/** A path matched against these asks before a write or delete: the next git, shell, editor or agent run would execute it. */
export interface PathMatch {
  /** What the file is, for the approval text ("git hooks and config", "a shell start-up file"). */
  what: string;
}

// Security: a write here runs code later without anyone typing a command — git runs hooks and reads
// core.fsmonitor / core.sshCommand / filters from its config; a `.git` *file* redirects git to another gitdir.
const CODE_DIRS: ReadonlyArray<[string[], string]> = [
  [['.git'], 'git internals (hooks and config run commands)'],
  [['.hg'], 'Mercurial internals (hgrc hooks run commands)'],
  [['.husky'], 'git hooks (husky)'],
  [['.vscode'], 'editor settings and tasks (VS Code runs tasks and terminal settings)'],
  [['.idea'], 'editor settings and run configurations (JetBrains)'],
  [['.cursor'], 'editor and agent settings (Cursor)'],
  [['.claude'], 'agent settings and hooks (Claude Code)'],
  [['.gemini'], 'agent settings and tool servers (Gemini CLI)'],
  [['.continue'], 'agent configuration (Continue)'],
  [['.codex'], 'agent configuration and tool servers (Codex CLI)'],
  [['.windsurf'], 'agent settings (Windsurf)'],
  [['.zed'], 'editor settings and tasks (Zed)'],
  [['.devcontainer'], 'dev-container definition (runs lifecycle commands)'],
  [['.ssh'], 'SSH configuration (authorized_keys, config ProxyCommand, rc)'],
  [['.emacs.d'], 'Emacs start-up code'],
  [['.vim'], 'Vim plugins'],
  [['.config', 'fish'], 'fish shell start-up files'],
  [['.config', 'nvim'], 'Neovim start-up code'],
  [['.config', 'git'], 'git configuration'],
  [['.config', 'code'], 'VS Code user settings and tasks'],
  [['application support', 'code'], 'VS Code user settings and tasks'],
  [['node_modules', '.bin'], 'commands npm scripts run'],
  [['.config', 'autostart'], 'desktop autostart entries'],
  [['.config', 'systemd'], 'systemd user services'],
  [['.config', 'environment.d'], 'session environment'],
  [['.config', 'direnv'], 'direnv configuration'],
  [['.config', 'mise'], 'mise configuration (runs hooks)'],
  [['.local', 'bin'], 'commands on the PATH'],
  [['.cargo', 'config'], 'cargo configuration (runners and linkers)'],
  [['.cargo', 'config.toml'], 'cargo configuration (runners and linkers)'],
  [['.aws'], 'AWS configuration (credential_process runs commands)'],
  [['.docker', 'config.json'], 'Docker configuration (credential helpers run commands)'],
  [['.kube', 'config'], 'Kubernetes configuration (exec credential plugins)'],
  [['library', 'launchagents'], 'macOS launch agents'],
];

const CODE_NAMES: ReadonlyMap<string, string> = new Map(
  [
    ...[
      '.bashrc', '.bash_aliases', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile',
      '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.cshrc', '.tcshrc', '.login', '.logout', '.inputrc',
      '.xprofile', '.xinitrc', '.xsession', '.xsessionrc', '.pam_environment',
    ].map((name) => [name, 'a shell or session start-up file'] as const),
    ['.envrc', 'a direnv file (runs when a shell enters the folder)'],
    ['.mcp.json', 'an MCP server list (agents start these commands)'],
    ['.gitconfig', 'git configuration'],
    ...['.pre-commit-config.yaml', 'lefthook.yml', '.lefthook.yml', '.huskyrc'].map(
      (name) => [name, 'git hook configuration (runs commands on commit)'] as const,
    ),
    ...['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.pnpmfile.mjs', 'bunfig.toml', '.bunfig.toml'].map(
      (name) => [name, 'package-manager configuration (can run scripts or load code)'] as const,
    ),
    ...['sitecustomize.py', 'usercustomize.py', '.pythonrc', '.pythonrc.py'].map(
      (name) => [name, 'Python start-up code'] as const,
    ),
    ...['.vimrc', '.gvimrc', '.exrc', '.nvimrc', '.emacs', '.tmux.conf', '.gdbinit', '.lldbinit', '.irbrc', '.pryrc', '.rprofile', '.psqlrc'].map(
      (name) => [name, 'a start-up file a program runs'] as const,
    ),
    ...['.mise.toml', 'mise.toml'].map((name) => [name, 'mise configuration (runs hooks)'] as const),
  ],
);

/** Python runs every `*.pth` file in site-packages at start-up. */
const CODE_SUFFIXES: ReadonlyArray<[string, string]> = [
  ['.pth', 'a Python path file (run at interpreter start-up)'],
  ['.code-workspace', 'a VS Code workspace (settings and tasks)'],
];

// Security: reading these hands credentials to the model (and to whoever wrote the prompt it is following).
const SECRET_DIRS: ReadonlyArray<[string[], string]> = [
  [['.gnupg'], 'GnuPG keys'],
  [['.aws'], 'AWS credentials'],
  [['.azure'], 'Azure credentials'],
  [['.config', 'gcloud'], 'Google Cloud credentials'],
  [['.config', 'gh'], 'GitHub CLI tokens'],
  [['.password-store'], 'a password store'],
  [['.docker', 'config.json'], 'Docker registry credentials'],
  [['.kube', 'config'], 'Kubernetes credentials'],
  [['.m2', 'settings.xml'], 'Maven repository passwords'],
  [['.gradle', 'gradle.properties'], 'Gradle repository tokens'],
  [['.config', 'rclone'], 'rclone cloud credentials'],
];

/** Files in `.ssh` that are not secret. */
const SSH_PUBLIC = new Set(['known_hosts', 'known_hosts.old', 'config', 'authorized_keys', 'environment']);

const SECRET_NAMES = new Set([
  '.env', '.envrc', '.netrc', '_netrc', '.npmrc', '.pypirc', '.pgpass', '.git-credentials', '.my.cnf', '.htpasswd',
  '.vault-token', '.boto', '.s3cfg', 'credentials', 'credentials.json', 'credentials.toml', 'credentials.tfrc.json', 'secrets.json', 'secrets.yml', 'secrets.yaml',
  'secrets.toml', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', 'identity',
  '.bash_history', '.zsh_history', '.history', '.sh_history', '.python_history', '.psql_history', '.mysql_history',
  '.node_repl_history', '.sqlite_history', '.lesshst', 'shadow', 'gshadow', 'master.passwd',
]);

const SECRET_SUFFIXES = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.kdbx', '.ppk', '.keychain-db'];

/** `.env.example` and friends are templates that ship with a project, not secrets. */
const ENV_TEMPLATES = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'schema', 'test.example']);

function splitLower(resolved: string): string[] {
  return resolved.toLowerCase().split(/[\\/]+/).filter((segment) => segment !== '');
}

/** Whether `needle` occurs as consecutive segments of `segments` (the last one may be the file itself). */
function containsRun(segments: readonly string[], needle: readonly string[]): boolean {
  outer: for (let i = 0; i + needle.length <= segments.length; i++) {
    for (let j = 0; j < needle.length; j++) if (segments[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Files a write or delete to would let code run later (git hooks, shell rc files, editor tasks, agent configs). */
export function codeExecutionMatch(resolved: string): PathMatch | undefined {
  const segments = splitLower(resolved);
  const name = segments.at(-1) ?? '';
  for (const [run, what] of CODE_DIRS) if (containsRun(segments, run)) return { what };
  const byName = CODE_NAMES.get(name);
  if (byName) return { what: byName };
  for (const [suffix, what] of CODE_SUFFIXES) if (name.endsWith(suffix)) return { what };
  return undefined;
}

/** Files whose contents are credentials (keys, tokens, `.env`); reading them asks. */
export function secretFileMatch(resolved: string): PathMatch | undefined {
  const segments = splitLower(resolved);
  const name = segments.at(-1) ?? '';
  for (const [run, what] of SECRET_DIRS) if (containsRun(segments, run)) return { what };
  const inSsh = segments.length >= 2 && segments.at(-2) === '.ssh';
  if (inSsh && !name.endsWith('.pub') && !SSH_PUBLIC.has(name)) return { what: 'an SSH key or secret' };
  if (SECRET_NAMES.has(name)) return { what: name.startsWith('id_') ? 'an SSH private key' : 'a credentials file' };
  if (name.startsWith('.env.') && !ENV_TEMPLATES.has(name.slice('.env.'.length))) return { what: 'an environment file with secrets' };
  if (SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix))) return { what: 'a private key or certificate store' };
  return undefined;
}

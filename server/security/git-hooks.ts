import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix } from 'node:path';
import type { PathMatch } from './sensitive-files.js';
import { findRepository, isGitDir, parseGitConfig, readConfigText, repositoryConfigFiles } from './shell/git-config.js';
import { isWithin } from './within.js';

/**
 * Security: git runs the hooks in the folder `core.hooksPath` names — a project's `.githooks/`, a user's
 * `~/.git-hooks/` — on the owner's next commit, checkout or merge, as surely as those in `.git/hooks/`, which the
 * path lists (sensitive-files.ts) catch by name. A repository folder under another name (`project.git`, a bare
 * clone) holds hooks and a config git obeys just the same. A write to either would run the writer's code later
 * with nobody asked, outside any sandbox; found here from the repository's own configuration and the user's.
 */
export function gitHooksMatch(resolved: string, env: NodeJS.ProcessEnv = process.env): PathMatch | undefined {
  const folder = posix.dirname(resolved);
  for (let dir = folder; ; dir = posix.dirname(dir)) {
    if (isGitDir(dir)) return { what: `inside the git repository folder ${dir} (its hooks and config run commands)` };
    if (posix.dirname(dir) === dir) break;
  }
  const repository = findRepository(folder);
  const home = env.HOME || homedir();
  const files = [...userConfigFiles(env, home), ...(repository ? repositoryConfigFiles(repository.gitDir) : [])];
  // A relative hooks path is taken from the work tree's top (a bare repository's own folder).
  const base = repository ? (repository.workTree ?? repository.gitDir) : undefined;
  for (const value of hooksPaths(files, home)) {
    const hooks = value.startsWith('~/') ? posix.join(home, value.slice(2)) : posix.isAbsolute(value) ? value : base && posix.resolve(base, value);
    if (hooks === undefined) continue;
    if (isWithin(resolved, hooks) || isWithin(resolved, realOrSelf(hooks))) return { what: `a git hook (core.hooksPath is ${value})` };
  }
  return undefined;
}

/** The system's and the user's git configuration, where git looks for them. */
function userConfigFiles(env: NodeJS.ProcessEnv, home: string): string[] {
  const system = env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM || '/etc/gitconfig'];
  if (env.GIT_CONFIG_GLOBAL) return [...system, env.GIT_CONFIG_GLOBAL];
  return [...system, posix.join(env.XDG_CONFIG_HOME || posix.join(home, '.config'), 'git', 'config'), posix.join(home, '.gitconfig')];
}

/** Files a config pulls in with include.path / includeIf.*.path, followed this deep (whatever their condition). */
const INCLUDE_DEPTH = 4;

/** Every core.hooksPath set in these files or the files they include. */
function hooksPaths(files: readonly string[], home: string): string[] {
  const found: string[] = [];
  const visit = (file: string, depth: number) => {
    const text = readConfigText(file);
    if (text === undefined) return;
    for (const { key, value } of parseGitConfig(text)) {
      if (key === 'core.hookspath' && value.trim() !== '') found.push(value.trim());
      if (depth < INCLUDE_DEPTH && /^(?:include|includeif\..+)\.path$/.test(key) && value.trim() !== '') {
        const included = value.startsWith('~/') ? posix.join(home, value.slice(2)) : posix.resolve(posix.dirname(file), value);
        visit(included, depth + 1);
      }
    }
  };
  for (const file of files) visit(file, 0);
  return found;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

import { type Word } from '../words.js';

/** Programs that run code they are given: shells, interpreters, privilege changers; and their harmless version query. */

/** Programs and tools whose `--version` (and only that) is a harmless question. */
const VERSION_QUERY = new RegExp(
  String.raw`^(?:aws|gcloud|az|gh|brew|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|java|javac|go|` +
    String.raw`rustc|cargo|gcc|g\+\+|cc|clang|clang\+\+|make|cmake|npm|npx|pnpm|yarn|pip[0-9.]*|pipx|uv|poetry|docker|podman|kubectl|git|` +
    String.raw`bash|zsh|fish|ksh|tmux|vim|nvim|emacs|tsc|swift|dotnet|gradle|mvn|terraform|ansible|code|curl|wget|ssh|openssl|sqlite3|` +
    String.raw`psql|mysql|jq|rg|sed|awk|gawk|grep|find|tar|gzip|zip|unzip|rsync|less|man)$`,
);

/**
 * Security: only spellings that print a version and exit. `-v` is not one in general — `bash -v`, `python -v` and
 * `ruby -v` go on to run whatever is piped into them.
 */
export function isVersionQuery(program: string, args: readonly Word[]): boolean {
  if (args.length !== 1 || !VERSION_QUERY.test(program)) return false;
  const arg = args[0]!.value;
  if (arg === '--version') return true;
  if (arg === '-v') return /^(?:node|nodejs|npm|npx|pnpm|yarn|perl[0-9.]*|php[0-9.]*|bun|gcc|cc|clang|make|tsc|rg|curl)$/.test(program);
  if (arg === '-V') return /^(?:python[0-9.]*|pypy[0-9.]*|deno|pip[0-9.]*|ssh|rustc|cargo|jq|sqlite3|psql|mysql|uv)$/.test(program);
  if (arg === 'version') return /^(?:go|docker|podman|kubectl|dotnet|terraform|poetry|openssl)$/.test(program);
  if (arg === '-version') return program === 'java' || program === 'javac';
  return false;
}

export const SHELLS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'rbash', 'yash', 'posh', 'elvish', 'nu',
  'xonsh', 'pwsh', 'powershell',
]);

/** Programs that run code they are given (or that can open a shell from inside: pagers, editors, debuggers). */
export const INTERPRETER = new RegExp(
  String.raw`^(?:python[0-9.]*|pypy[0-9.]*|ipython[0-9]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|irb|php[0-9.]*|lua[0-9.]*|luajit|` +
    String.raw`tclsh[0-9.]*|wish|Rscript|R|julia|osascript|java|jshell|groovy|scala|kotlin|swift|ghci|runghc|runhaskell|elixir|iex|erl|` +
    String.raw`escript|guile|racket|sbcl|clisp|ocaml|expect|gdb|lldb|sqlite3|mysql|psql|bc|dc|ed|ex|vi|vim|nvim|view|vimdiff|nano|pico|` +
    String.raw`emacs|emacsclient|less|more|most|pg|man|info|ftp|tmux|screen|make|gmake|cmake|ninja|npm|npx|pnpm|pnpx|yarn|pip[0-9.]*|` +
    String.raw`pipx|uv|uvx|poetry|cargo|go|gcc|g\+\+|cc|clang|tsc|ts-node|tsx|jupyter|docker|podman|kubectl|ansible|ansible-playbook|` +
    String.raw`terraform|source|\.)$`,
);

export const PRIVILEGE = new Set(['sudo', 'doas', 'su', 'pkexec', 'runuser', 'sg', 'newgrp', 'setpriv', 'capsh', 'sudoedit']);

/** Variables and the environment: which assignments change what later commands run, which commands print it. */

const FORMATTING_VARIABLES = new RegExp(
  String.raw`^(?:LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|POSIXLY_CORRECT|GREP_COLORS?|` +
    String.raw`LS_COLORS|LSCOLORS|TIME_STYLE|QUOTING_STYLE|BLOCK_SIZE|DF_BLOCK_SIZE|DU_BLOCK_SIZE|TABSIZE|DEBUG|CI|VERBOSE)$`,
);

/** Environment variables a command may be given (`LANG=C sort`): they change formatting, never what runs. */
export function safeEnvironmentVariable(name: string, value: string | undefined): boolean {
  if (FORMATTING_VARIABLES.test(name)) {
    return true;
  }
  // Turning a pager off is always fine; pointing it at a program is not.
  return /^(?:PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER)$/.test(name) && (value === 'cat' || value === '');
}

/** Variables already in a run_shell command's environment: setting one changes what every later program gets. */
const EXPORTED = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR', 'TERM', 'PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER',
  'GIT_TERMINAL_PROMPT', 'LESSSECURE',
]);

/**
 * Can this assignment change what runs? An exported one (`X=… cmd`, `export X=…`, `env X=…`) must be on the safe
 * list; a plain shell variable only matters when it is special to bash or already exported.
 */
export function riskyAssignment(name: string, value: string | undefined, exported: boolean): boolean {
  if (safeEnvironmentVariable(name, value)) return false;
  return exported || dangerousVariable(name) || EXPORTED.has(name);
}

const SPECIAL_VARIABLES = new RegExp(
  String.raw`^(?:PATH|HOME|SHELL|ENV|IFS|CDPATH|GLOBIGNORE|PROMPT_COMMAND|PS[0-9]|SHELLOPTS|BASHOPTS|EDITOR|VISUAL|TERMINFO.*|` +
    String.raw`HOSTALIASES|LOCALDOMAIN|RES_OPTIONS|TMPDIR|HISTFILE)$`,
  'i',
);
const PROGRAM_VARIABLE_PREFIXES = new RegExp(
  String.raw`^(?:BASH|LD_|DYLD_|GIT_|XDG_|LESS|SSH_|GCONV|MALLOC|NODE_|PYTHON|PERL|RUBY|JAVA|NPM_|npm_|CARGO|RUST|GO|DOCKER|KUBE|` +
    String.raw`AWS|GPG|GNUPG|PAGER|MANPAGER|SUDO)`,
  'i',
);

/** Shell variable names a command may set without changing what later commands run or load. */
export function dangerousVariable(name: string): boolean {
  return (
    SPECIAL_VARIABLES.test(name) ||
    PROGRAM_VARIABLE_PREFIXES.test(name) ||
    /PATH$|LIB|PRELOAD|PAGER|OPTIONS?$|OPTS?$|CONFIG|RC$|_HOME$|COMMAND|_CMD$|EXEC|PROG|HOOK|PROXY|EDITOR|BROWSER|SHELL/i.test(name)
  );
}

/** Commands that print the environment (tokens included, when there are any). */
export const DUMPS_ENVIRONMENT = new Set(['env', 'printenv', 'set', 'export', 'declare', 'typeset', 'compgen']);

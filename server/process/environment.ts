/**
 * The one allowlist of variables a child process may get from the gateway's environment. Everything else — the
 * gateway's token (PINCER_TOKEN), API keys, cloud credentials, proxy settings with passwords — never reaches a
 * program Pincer starts. `LC_*` stands for every locale category variable.
 */
const ALLOWED = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'LC_*', 'TZ', 'TMPDIR',
  'SYSTEMROOT', // every Windows program needs it
  // Security: only for programs that must reach the desktop session (the clipboard): a shell command holding
  // DISPLAY could read the keystrokes of every other window on the screen.
  'DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR',
] as const;

export type InheritedVariable = (typeof ALLOWED)[number];

/** What an ordinary tool process inherits: the allowlist without the desktop-session variables. */
export const DEFAULT_INHERITED: readonly InheritedVariable[] = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'LC_*', 'TZ', 'TMPDIR', 'SYSTEMROOT',
];
/** The variables a program needs to reach the person's desktop session. */
export const DESKTOP_SESSION: readonly InheritedVariable[] = ['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR'];

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface EnvironmentOptions {
  /** Which allowlisted variables to pass on from `source`; default DEFAULT_INHERITED. */
  inherit?: readonly InheritedVariable[];
  /** Fixed entries of this call site (pagers off, HOME in a scratch folder…); they win over inherited values. */
  set?: Readonly<Record<string, string>>;
  /** The environment to take inherited values from; default the gateway's own. */
  source?: NodeJS.ProcessEnv;
}

/**
 * The environment of a child process: a few allowlisted variables from the gateway's environment plus the call
 * site's fixed entries, and nothing else. Security: a passed value that contains the value of a PINCER_* variable
 * is dropped too (a token copied into another variable), and no PINCER_* name is ever passed.
 */
export function scrubbedEnvironment(options: EnvironmentOptions = {}): Record<string, string> {
  const source = options.source ?? process.env;
  const inherit = new Set<string>(options.inherit ?? DEFAULT_INHERITED);
  const secrets = Object.entries(source)
    .filter(([name, value]) => /^PINCER/i.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value!);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || /^PINCER/i.test(name)) continue;
    if (!inherit.has(name) && !(inherit.has('LC_*') && /^LC_[A-Z_]+$/.test(name))) continue;
    if (secrets.some((secret) => value.includes(secret))) continue;
    env[name] = value;
  }
  if (inherit.has('PATH')) env.PATH ??= FALLBACK_PATH;
  for (const [name, value] of Object.entries(options.set ?? {})) {
    if (!/^PINCER/i.test(name)) env[name] = value;
  }
  return env;
}

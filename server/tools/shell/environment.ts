/** Variables a command gets from the gateway's environment; nothing else is passed on. */
const PASSED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'];

/**
 * The environment of a shell command. Security: it starts from a short allowlist, so the gateway's token
 * (PINCER_TOKEN), API keys and cloud credentials in its environment never reach a command; a passed value that
 * contains a PINCER_* value is dropped as well. Pagers are set to `cat` so `git log` or `man` cannot stop and wait
 * (or offer `!sh`) in the terminal.
 */
export function shellEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(source)) {
    if (/^LC_[A-Z_]+$/.test(name) && value !== undefined) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  Object.assign(env, {
    TERM: 'xterm-256color',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANPAGER: 'cat',
    SYSTEMD_PAGER: '',
    GIT_TERMINAL_PROMPT: '0',
    LESSSECURE: '1',
  });
  const pincerValues = Object.entries(source)
    .filter(([name, value]) => /^PINCER/i.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value!);
  for (const [name, value] of Object.entries(env)) {
    if (/^PINCER/i.test(name) || pincerValues.some((secret) => value.includes(secret))) delete env[name];
  }
  return env;
}

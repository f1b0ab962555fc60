/** One `mcp_servers` entry of config.json, checked: a stdio command to start, or a Streamable HTTP URL. */
export type McpServerEntry =
  | ({ kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string } & EntryCommon)
  | ({ kind: 'http'; url: string; token?: string } & EntryCommon);

interface EntryCommon {
  disabled: boolean;
  timeoutMs: number;
  /** Whether its tools are imported as `<server>__<tool>` (the default) or under their own names (`"prefix": false`). */
  prefix: boolean;
}

/** Server names: they start every imported tool's name (`<server>__<tool>`), so they stay short and plain. */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

const STDIO_KEYS = ['command', 'args', 'env', 'cwd', 'disabled', 'timeout_ms', 'prefix'];
const HTTP_KEYS = ['url', 'token', 'disabled', 'timeout_ms', 'prefix'];
const DEFAULT_TIMEOUT_MS = 60_000;

/** The entry, or what is wrong with it (that server then fails; the others and the gateway start). */
export function parseServerEntry(name: string, raw: unknown): McpServerEntry | { problem: string } {
  if (!SERVER_NAME.test(name)) return { problem: `the name "${name}" must be 1–32 letters, digits, "_" or "-", starting with a letter or digit` };
  // GET /mcp-servers/catalog is the catalogue of well-known servers, not a server's view.
  if (name === 'catalog') return { problem: 'the name "catalog" is taken by the catalogue of well-known servers; pick another' };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { problem: 'must be an object with "command" (stdio) or "url" (HTTP)' };
  const entry = raw as Record<string, unknown>;
  const http = entry.url !== undefined;
  const unknown = Object.keys(entry).filter((k) => !(http ? HTTP_KEYS : STDIO_KEYS).includes(k));
  if (unknown.length > 0) return { problem: `unknown key "${unknown[0]}" (known: ${(http ? HTTP_KEYS : STDIO_KEYS).join(', ')})` };
  if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean') return { problem: '"disabled" must be true or false' };
  const timeout = entry.timeout_ms;
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) >= 1000 && (timeout as number) <= 3_600_000)) {
    return { problem: '"timeout_ms" must be a whole number of milliseconds from 1000 to 3600000' };
  }
  if (entry.prefix !== undefined && typeof entry.prefix !== 'boolean') return { problem: '"prefix" must be true (tools named <server>__<tool>) or false (their own names)' };
  const common = { disabled: entry.disabled === true, timeoutMs: (timeout as number | undefined) ?? DEFAULT_TIMEOUT_MS, prefix: entry.prefix !== false };
  if (http) {
    let url: URL;
    try {
      url = new URL(String(entry.url));
    } catch {
      return { problem: '"url" must be an http:// or https:// URL' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: '"url" must be an http:// or https:// URL' };
    if (entry.token !== undefined && (typeof entry.token !== 'string' || entry.token === '')) return { problem: '"token" must be a non-empty string' };
    return { kind: 'http', url: url.href, ...(typeof entry.token === 'string' && { token: entry.token }), ...common };
  }
  if (typeof entry.command !== 'string' || entry.command.trim() === '') return { problem: 'needs "command" (a program to start) or "url"' };
  if (entry.args !== undefined && !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string'))) return { problem: '"args" must be an array of strings' };
  const env = entry.env ?? {};
  if (!env || typeof env !== 'object' || Array.isArray(env) || !Object.values(env).every((v) => typeof v === 'string')) {
    return { problem: '"env" must be an object of strings' };
  }
  if (entry.cwd !== undefined && typeof entry.cwd !== 'string') return { problem: '"cwd" must be a folder path' };
  return {
    kind: 'stdio',
    command: entry.command,
    args: (entry.args as string[] | undefined) ?? [],
    env: { ...(env as Record<string, string>) },
    ...(typeof entry.cwd === 'string' && { cwd: entry.cwd }),
    ...common,
  };
}

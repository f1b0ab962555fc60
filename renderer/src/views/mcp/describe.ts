// Imported MCP servers in words: their status and their tools', what waits for the owner, what a definition hides,
// and the "Add a server" form as a config.json entry. Pure, so it is tested without a browser.
import type { Look } from '../../lib/look';
import type { ImportedTool, ImportedToolStatus, McpCatalogEntry, McpServer, McpServerEntry, McpServerStatus, Risk } from '../../lib/types';

/** Colour is never the only signal: each status has its own icon and word. */
export const SERVER_LOOK: Record<McpServerStatus, Look> = {
  running: { icon: '✓', label: 'running', tone: 'ok', hint: 'Connected: its active tools can be called' },
  starting: { icon: '◌', label: 'starting', tone: 'run', hint: 'Starting it (or connecting to it) and reading its tools' },
  restarting: { icon: '↻', label: 'restarting', tone: 'wait', hint: 'It stopped answering or its process ended; Pincer starts it again, waiting longer after each failure' },
  failed: { icon: '✕', label: 'failed', tone: 'fail', hint: 'Its entry cannot be used, or its program was not found: the error says why' },
  disabled: { icon: '–', label: 'disabled', tone: 'neutral', hint: 'Turned off by you: not started, its tools are not imported' },
  stopped: { icon: '■', label: 'stopped', tone: 'neutral', hint: 'Not running in this gateway' },
};

export const TOOL_LOOK: Record<ImportedToolStatus, Look> = {
  active: { icon: '✓', label: 'active', tone: 'ok', hint: 'Imported: it can be called through Pincer' },
  changed: { icon: '±', label: 'changed', tone: 'wait', hint: 'Its definition changed since you accepted it: off until you accept the change' },
  flagged: { icon: '⚑', label: 'flagged', tone: 'fail', hint: 'Its definition reads like instructions to the model: off until you accept it' },
  disabled: { icon: '–', label: 'disabled', tone: 'neutral', hint: 'Turned off by you: off until you accept it again' },
  invalid: { icon: '✕', label: 'invalid', tone: 'fail', hint: 'It cannot be imported: the problem says why' },
};

/** The risks the owner can rate a tool: safe runs without asking, the others ask the owner each call. */
export const RISKS: readonly Risk[] = ['safe', 'sensitive', 'dangerous'];

/** Held back until the owner accepts it: its definition changed, or reads like prompt injection. */
export const heldBack = (tool: ImportedTool): boolean => tool.status === 'changed' || tool.status === 'flagged';

/**
 * The tools "Accept all waiting" accepts, as the gateway counts them: held back, or never rated by the owner. One the
 * owner turned off is left alone (accepting it takes naming it), and an invalid one cannot be accepted.
 */
export const waitingTools = (server: McpServer): ImportedTool[] =>
  server.tools.filter((t) => !t.accepted && t.status !== 'disabled' && t.status !== 'invalid');

/** The owner can accept it: it is not accepted as it is now (one they turned off included), and it can be imported. */
export const canAccept = (tool: ImportedTool): boolean => !tool.accepted && tool.status !== 'invalid';

export const canAcceptAny = (server: McpServer): boolean => server.tools.some(canAccept);

/** The server has tools held back for the owner. */
export const needsOwner = (server: McpServer): boolean => server.tools.some(heldBack);

/** Failed, restarting, or running with an error (its tools could not be listed). */
export const inTrouble = (server: McpServer): boolean =>
  server.status === 'failed' || server.status === 'restarting' || (server.status === 'running' && server.last_error !== null);

const SERVER_ORDER: Record<McpServerStatus, number> = { failed: 1, restarting: 1, starting: 2, running: 3, stopped: 4, disabled: 4 };
const TOOL_ORDER: Record<ImportedToolStatus, number> = { flagged: 0, changed: 0, invalid: 1, active: 2, disabled: 3 };

/** Servers with tools waiting for the owner first, then those in trouble, then the rest; by name within each. */
export function serversByAttention(servers: readonly McpServer[]): McpServer[] {
  const rank = (s: McpServer) => (needsOwner(s) ? 0 : SERVER_ORDER[s.status]);
  return [...servers].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** Tools held back first, then invalid ones, the active, and those turned off; by name within each. */
export function toolsByAttention(tools: readonly ImportedTool[]): ImportedTool[] {
  return [...tools].sort((a, b) => TOOL_ORDER[a.status] - TOOL_ORDER[b.status] || a.name.localeCompare(b.name));
}

/** The header's line: "3 servers, 2 running, 1 waiting for you, 1 in trouble" (the parts that are not zero). */
export function summary(servers: readonly McpServer[]): string {
  const count = (test: (s: McpServer) => boolean) => servers.filter(test).length;
  const running = count((s) => s.status === 'running');
  const waiting = count(needsOwner);
  const trouble = count(inTrouble);
  return [
    `${servers.length} server${servers.length === 1 ? '' : 's'}`,
    running > 0 && `${running} running`,
    waiting > 0 && `${waiting} waiting for you`,
    trouble > 0 && `${trouble} in trouble`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** A piece of a description: text as it is, or a character that shows nothing, named so the owner sees it is there. */
export type Revealed = { text: string } | { hidden: string };

// Zero-width, bidirectional and Unicode tag characters: they hide text from a reader but not from the model.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

/** Splits a description at its invisible characters, each one named by its code point (`U+200B`). */
export function revealInvisible(text: string): Revealed[] {
  const parts: Revealed[] = [];
  let last = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ hidden: `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` });
    last = match.index + match[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push({ text: text.slice(last) });
  return parts;
}

/** What the owner typed into "Add a server". */
export interface ServerForm {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  /** One argument a line, so a path with spaces stays one argument. */
  args: string;
  /** `NAME=value` a line. */
  env: string;
  url: string;
  token: string;
}

export const EMPTY_FORM: ServerForm = { name: '', transport: 'stdio', command: '', args: '', env: '', url: '', token: '' };

/**
 * The add form filled with a catalogue entry's command line, ready to send as it is or to edit. A name already taken
 * gets a number (`memory-2`), so picking an entry twice never proposes replacing a server.
 */
export function formFromCatalog(entry: McpCatalogEntry, existing: readonly string[]): ServerForm {
  let name = entry.name;
  for (let n = 2; existing.includes(name); n++) name = `${entry.name}-${n}`;
  return { ...EMPTY_FORM, name, transport: 'stdio', command: entry.command, args: entry.args.join('\n') };
}

/** "Not pinned: it runs the newest at each start (1.2.0 ran last)", or the pinned version: what a server's package runs. */
export function packageInWords(pkg: NonNullable<McpServer['package']>): string {
  if (pkg.pinned) return `${pkg.name} ${pkg.pinned} (pinned)`;
  return `${pkg.name}, no version pinned: the newest runs at each start${pkg.version ? ` (${pkg.version} ran last)` : ''}`;
}

const lines = (text: string) => text.split(/\r?\n/).map((line, i) => ({ line: line.trim(), number: i + 1 }));

/**
 * The form as the config.json entry `PUT /mcp-servers/{name}` takes, or what to fix first. Only what the form itself
 * can tell is checked here (a missing field, an environment line without "="); the gateway judges the rest (the
 * name's characters, the URL's scheme) and its message is shown as it says it.
 */
export function entryFromForm(form: ServerForm, existing: readonly string[]): { name: string; entry: McpServerEntry } | { problem: string } {
  const name = form.name.trim();
  if (!name) return { problem: 'Give the server a name: its tools are imported as <name>__<tool>.' };
  if (existing.includes(name)) return { problem: `There is already a server named "${name}": remove it first, or choose another name.` };
  if (form.transport === 'http') {
    const url = form.url.trim();
    if (!url) return { problem: 'Give the URL of the server’s MCP endpoint, such as http://127.0.0.1:8000/mcp.' };
    const token = form.token.trim();
    return { name, entry: { url, ...(token && { token }) } };
  }
  const command = form.command.trim();
  if (!command) return { problem: 'Give the command that starts the server, such as npx or uvx.' };
  const args = lines(form.args).filter((l) => l.line !== '').map((l) => l.line);
  const env: Record<string, string> = {};
  for (const { line, number } of lines(form.env)) {
    if (line === '') continue;
    const equals = line.indexOf('=');
    if (equals <= 0) return { problem: `Environment line ${number} is not NAME=value: ${line}` };
    env[line.slice(0, equals).trim()] = line.slice(equals + 1);
  }
  return { name, entry: { command, ...(args.length > 0 && { args }), ...(Object.keys(env).length > 0 && { env }) } };
}

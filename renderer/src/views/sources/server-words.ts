// What only imported MCP servers have, in words: the "Add a server" form as a config.json entry (filled from the
// catalogue or by hand), and the package a server's command runs. Pure, so it is tested without a browser.
import type { McpCatalogEntry, McpServerEntryBody, PackageView } from '../../../../server/contract/sources';

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
export function packageInWords(pkg: PackageView): string {
  if (pkg.pinned) return `${pkg.name} ${pkg.pinned} (pinned)`;
  return `${pkg.name}, no version pinned: the newest runs at each start${pkg.version ? ` (${pkg.version} ran last)` : ''}`;
}

const lines = (text: string) => text.split(/\r?\n/).map((line, i) => ({ line: line.trim(), number: i + 1 }));

/**
 * The form as the config.json entry `PUT /mcp-servers/{name}` takes, or what to fix first. Only what the form itself
 * can tell is checked here (a missing field, an environment line without "="); the gateway judges the rest (the
 * name's characters, the URL's scheme) and its message is shown as it says it.
 */
export function entryFromForm(form: ServerForm, existing: readonly string[]): { name: string; entry: McpServerEntryBody } | { problem: string } {
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

import { describe, expect, it } from 'vitest';
import type { McpCatalogEntry } from '../../../../server/contract/sources.js';
import { entryFromForm, formFromCatalog, packageInWords } from '../../../../renderer/src/views/sources/server-words.js';
import { mcpCatalog } from '../../../../server/mcp/client/catalog.js';

/** A catalogue entry picked in the Sources view fills the add form with its command line, which sends it as is. */

const catalog: McpCatalogEntry[] = mcpCatalog(['/home/me/projects', '/home/me/My Documents']);
const entry = (name: string) => catalog.find((c) => c.name === name)!;

describe('picking a catalogue entry', () => {
  it('fills the form with the command and one argument a line, and the form sends exactly the catalogue\'s entry', () => {
    const form = formFromCatalog(entry('filesystem'), []);
    expect(form).toMatchObject({ name: 'filesystem', transport: 'stdio', command: 'npx', env: '' });
    expect(form.args.split('\n')).toEqual(['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/home/me/projects', '/home/me/My Documents']);
    // A folder with a space stays one argument.
    expect(entryFromForm(form, [])).toEqual({ name: 'filesystem', entry: { command: 'npx', args: entry('filesystem').args } });
    expect(entryFromForm(formFromCatalog(entry('serena'), []), [])).toEqual({ name: 'serena', entry: { command: 'uvx', args: ['--from', 'serena-agent==2.1.0', 'serena', 'start-mcp-server'] } });
  });

  it('never proposes replacing a server: a taken name gets a number', () => {
    expect(formFromCatalog(entry('memory'), ['memory']).name).toBe('memory-2');
    expect(formFromCatalog(entry('memory'), ['memory', 'memory-2']).name).toBe('memory-3');
  });
});

describe('a server\'s package in words', () => {
  it('says whether the version is pinned, and which one ran last when it is not', () => {
    expect(packageInWords({ runner: 'npx', name: '@modelcontextprotocol/server-memory', spec: '@modelcontextprotocol/server-memory@2026.8.31', pinned: '2026.8.31', version: '2026.8.31' })).toBe('@modelcontextprotocol/server-memory 2026.8.31 (pinned)');
    expect(packageInWords({ runner: 'npx', name: 'pkg', spec: 'pkg', pinned: null, version: '1.2.0' })).toBe('pkg, no version pinned: the newest runs at each start (1.2.0 ran last)');
    expect(packageInWords({ runner: 'uvx', name: 'mcp-server-fetch', spec: 'mcp-server-fetch', pinned: null, version: null })).toBe('mcp-server-fetch, no version pinned: the newest runs at each start');
  });
});

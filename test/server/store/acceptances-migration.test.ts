import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { PackageVersions } from '../../../server/mcp/client/package-version.js';
import { McpPins } from '../../../server/mcp/client/pins.js';
import { migrate } from '../../../server/store/db.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { MIGRATIONS } from '../../../server/store/migrations/index.js';

/**
 * Moving the owner's acceptances into one store loses nothing: a data folder as an older Pincer left it (plugin
 * acceptances in their own table, MCP tool pins in mcp-servers.json, the package versions MCP servers' tools were
 * accepted with in mcp-packages.json) reads back the same through the new store.
 */

const T = Date.UTC(2026, 5, 1, 9, 30, 0);
const open: Store[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

/** A data folder at the schema before the acceptance store, with both old forms of acceptance in it. */
function oldDataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pincer-acceptances-'));
  const db = new Database(join(dir, 'pincer.db'));
  migrate(db, MIGRATIONS.filter((m) => m.version < 15));
  const insert = db.prepare(
    'INSERT INTO plugins (name, hash, tools, permissions, files, accepted_at, accepted_by, disabled) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  insert.run('weather', 'h-weather', JSON.stringify([{ name: 'forecast', risk: 'safe', description: 'Ünïcode "quoted"' }]), JSON.stringify({ hosts: ['api.example.org'], read: [], write: [] }), JSON.stringify([{ path: 'index.js', size: 12, sha256: 'ab' }]), T, 'owner', 0);
  // Accepted before files were kept (NULL), and then disabled by the owner.
  insert.run('old-one', 'h-old', '[]', '{"hosts":[]}', null, T + 1, 'owner', 1);
  insert.run('investment', 'h-bundled', '[]', '{}', '[]', T + 2, 'bundled', 0);
  db.close();
  writeFileSync(join(dir, 'mcp-servers.json'), JSON.stringify(OLD_PINS, null, 2));
  return dir;
}

const OLD_PINS = {
  files: {
    read_file: { hash: 'h1', definition: { description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }, risk: 'safe', accepted_at: '2026-05-01T10:00:00.000Z' },
    write_file: { hash: 'h2', definition: { title: 'Write', description: 'Writes.', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } }, risk: 'dangerous', accepted_at: '2026-05-02T10:00:00.000Z' },
  },
  shell: {
    run: { hash: 'h3', definition: { description: 'Runs.', inputSchema: { type: 'object' } }, risk: 'sensitive', accepted_at: '2026-05-03T10:00:00.000Z', disabled: true },
  },
};

describe('the acceptance store migration', () => {
  it('keeps every plugin acceptance as it was: hash, tools, permissions, files, when, by whom, disabled', () => {
    const store = openStore(join(oldDataFolder(), 'pincer.db'));
    open.push(store);
    expect(store.plugins.get('weather')).toEqual({
      name: 'weather',
      hash: 'h-weather',
      tools: [{ name: 'forecast', risk: 'safe', description: 'Ünïcode "quoted"' }],
      permissions: { hosts: ['api.example.org'], read: [], write: [] },
      files: [{ path: 'index.js', size: 12, sha256: 'ab' }],
      accepted_at: new Date(T).toISOString(),
      accepted_by: 'owner',
      disabled: false,
    });
    expect(store.plugins.get('old-one')).toMatchObject({ files: null, disabled: true, accepted_at: new Date(T + 1).toISOString() });
    expect(store.plugins.get('investment')).toMatchObject({ accepted_by: 'bundled', hash: 'h-bundled' });
    expect(store.acceptances.list('plugin').map((a) => a.source)).toEqual(['investment', 'old-one', 'weather']);
  });

  it('takes over every MCP pin from mcp-servers.json, rating and disabled included, and keeps the file aside', () => {
    const dir = oldDataFolder();
    const store = openStore(join(dir, 'pincer.db'));
    open.push(store);
    const pins = new McpPins(store.acceptances, dir);
    for (const [server, tools] of Object.entries(OLD_PINS)) {
      for (const [tool, pin] of Object.entries(tools)) expect(pins.get(server, tool)).toEqual(pin);
    }
    expect(store.acceptances.list('mcp')).toHaveLength(3);
    expect(existsSync(join(dir, 'mcp-servers.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'mcp-servers.json.imported'), 'utf8'))).toEqual(OLD_PINS);
  });

  it('does not let the old file undo what the owner accepted since, and imports nothing twice', () => {
    const dir = oldDataFolder();
    const store = openStore(join(dir, 'pincer.db'));
    open.push(store);
    const definition = { description: 'Reads a file, v2.', inputSchema: { type: 'object' } };
    new McpPins(store.acceptances).accept('files', 'read_file', definition, 'sensitive');
    const pins = new McpPins(store.acceptances, dir);
    expect(pins.get('files', 'read_file')).toMatchObject({ definition, risk: 'sensitive' });
    writeFileSync(join(dir, 'mcp-servers.json'), JSON.stringify({ files: { write_file: { ...OLD_PINS.files.write_file, risk: 'safe' } } }));
    new McpPins(store.acceptances, dir);
    expect(pins.get('files', 'write_file')?.risk).toBe('dangerous');
  });

  it('leaves an unreadable mcp-servers.json where it is and accepts nothing from it', () => {
    const dir = oldDataFolder();
    writeFileSync(join(dir, 'mcp-servers.json'), '{ not json');
    const store = openStore(join(dir, 'pincer.db'));
    open.push(store);
    const lines: string[] = [];
    const pins = new McpPins(store.acceptances, dir, (line) => lines.push(line));
    expect(pins.get('files', 'read_file')).toBeUndefined();
    expect(readFileSync(join(dir, 'mcp-servers.json'), 'utf8')).toBe('{ not json');
    expect(lines.join('\n')).toMatch(/could not be read/);
  });

  it('takes over every package version from mcp-packages.json, tools accepted by name included, next to the tool pins', () => {
    const dir = oldDataFolder();
    writeFileSync(join(dir, 'mcp-packages.json'), JSON.stringify(OLD_PACKAGES, null, 2));
    const store = openStore(join(dir, 'pincer.db'));
    open.push(store);
    const pins = new McpPins(store.acceptances, dir);
    const versions = new PackageVersions(store.acceptances, dir);
    expect([versions.accepted('files', 'read_file'), versions.accepted('files', 'write_file')]).toEqual(['1.1.0', '1.2.0']);
    expect(versions.accepted('memory', 'anything')).toBe('2026.8.31');
    // An entry without a version accepted nothing before either: the next version that runs is taken.
    expect(versions.accepted('odd', 'x')).toBeUndefined();
    // The server's package and its tools' definitions are kept side by side, neither in place of the other.
    expect(pins.get('files', 'read_file')).toEqual(OLD_PINS.files.read_file);
    expect(store.acceptances.list('mcp', 'files').map((a) => a.tool)).toEqual(['', 'read_file', 'write_file']);
    expect(existsSync(join(dir, 'mcp-packages.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'mcp-packages.json.imported'), 'utf8'))).toEqual(OLD_PACKAGES);
  });

  it('does not let an old mcp-packages.json undo a version accepted since, and imports nothing twice', () => {
    const dir = oldDataFolder();
    const store = openStore(join(dir, 'pincer.db'));
    open.push(store);
    new PackageVersions(store.acceptances).accept('files', '1.5.0');
    writeFileSync(join(dir, 'mcp-packages.json'), JSON.stringify(OLD_PACKAGES));
    const versions = new PackageVersions(store.acceptances, dir);
    expect(versions.accepted('files', 'write_file')).toBe('1.5.0');
    expect(versions.accepted('memory', 'x')).toBe('2026.8.31');
    versions.accept('memory', '2026.9.1');
    writeFileSync(join(dir, 'mcp-packages.json'), JSON.stringify(OLD_PACKAGES));
    new PackageVersions(store.acceptances, dir);
    expect(versions.accepted('memory', 'x')).toBe('2026.9.1');
  });

  it('leaves an unreadable mcp-packages.json where it is and accepts nothing from it', () => {
    const dir = oldDataFolder();
    writeFileSync(join(dir, 'mcp-packages.json'), '["not", "an object"]');
    const store = openStore(join(dir, 'pincer.db'));
    open.push(store);
    const lines: string[] = [];
    const versions = new PackageVersions(store.acceptances, dir, (line) => lines.push(line));
    expect(versions.accepted('files', 'read_file')).toBeUndefined();
    expect(readFileSync(join(dir, 'mcp-packages.json'), 'utf8')).toBe('["not", "an object"]');
    expect(lines.join('\n')).toMatch(/mcp-packages\.json could not be read \(not a JSON object\)/);
  });
});

const OLD_PACKAGES = {
  files: { version: '1.1.0', tools: { write_file: '1.2.0' } },
  memory: { version: '2026.8.31' },
  odd: { tools: { x: '1.0.0' } },
};

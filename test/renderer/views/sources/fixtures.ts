// Sources as the Sources view receives them: the shared view joined with its kind's own, each field a test does not
// name filled with what a quiet, running source would say.
import type { HeldBecause, McpServerView, PluginView, SourceStatus, SourceToolStatus, SourceToolView, SourceView } from '../../../../server/contract/sources.js';
import type { PluginSource, ServerSource } from '../../../../renderer/src/state/sources.svelte.js';

export function tool(name: string, status: SourceToolStatus, fields: Partial<SourceToolView> = {}): SourceToolView {
  return {
    name,
    tool: name,
    status,
    held_because: null,
    risk: 'sensitive',
    raised_because: [],
    accepted: status === 'active',
    description: '',
    flags: [],
    problem: null,
    ...fields,
  };
}

export const held = (name: string, because: HeldBecause, fields: Partial<SourceToolView> = {}): SourceToolView =>
  tool(name, 'held', { held_because: because, accepted: false, ...fields });

function view(kind: SourceView['kind'], name: string, status: SourceStatus, fields: Partial<SourceView>): SourceView {
  return { kind, name, status, held_because: null, reason: null, restarts: 0, accepted_at: null, tools: [], detail: `/${kind}/${name}`, ...fields };
}

export function plugin(name: string, status: SourceStatus, fields: Partial<SourceView> = {}, own: Partial<PluginView> = {}): PluginSource {
  const info: PluginView = {
    name,
    origin: 'user',
    dir: `/data/plugins/${name}`,
    status: 'running',
    reason: null,
    version: '1.0.0',
    description: null,
    entry: 'index.js',
    hash: `hash-of-${name}`,
    permissions: null,
    tools: [],
    files: [],
    file_count: 0,
    file_bytes: 0,
    changes: null,
    accepted_at: null,
    restarts: 0,
    log: [],
    sandbox: { kind: 'bubblewrap', detail: '' },
    ...own,
  };
  return { kind: 'plugin', name, key: `plugin:${name}`, view: view('plugin', name, status, fields), plugin: info };
}

export function server(name: string, status: SourceStatus, fields: Partial<SourceView> = {}, own: Partial<McpServerView> = {}): ServerSource {
  const info: McpServerView = {
    name,
    transport: 'stdio',
    target: 'node server.js',
    status: 'running',
    last_error: null,
    last_error_at: null,
    stderr: null,
    restarts: 0,
    server_info: null,
    package: null,
    tools: [],
    notice: 'It runs with your user\'s rights, outside Pincer\'s sandbox.',
    ...own,
  };
  return { kind: 'mcp', name, key: `mcp:${name}`, view: view('mcp', name, status, fields), server: info };
}

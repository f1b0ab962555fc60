// Plugins in words: their status, where a tool comes from and what a plugin may do. Pure, so the wording is tested
// without a browser.
import type { Look } from '../../lib/look';
import type { PluginPermissions, PluginStatus } from '../../lib/types';

/** Colour is never the only signal: each status has its own icon and word. */
export const STATUS_LOOK: Record<PluginStatus, Look> = {
  running: { icon: '✓', label: 'running', tone: 'ok', hint: 'Its tools are on and can be called' },
  new: { icon: '+', label: 'new', tone: 'wait', hint: 'Seen for the first time: none of its code runs, and its tools stay off, until you accept it' },
  changed: { icon: '±', label: 'changed', tone: 'wait', hint: 'Its files changed since you accepted it: none of its code runs until you accept the change' },
  disabled: { icon: '–', label: 'disabled', tone: 'neutral', hint: 'Turned off: its tools cannot be called' },
  failed: { icon: '✕', label: 'failed', tone: 'fail', hint: 'It could not load, or is not a valid plugin: the reason says why' },
  crashed: { icon: '↻', label: 'crashed', tone: 'fail', hint: 'Its process ended; Pincer is restarting it' },
  loading: { icon: '◌', label: 'loading', tone: 'run', hint: 'Checking its files and starting its process' },
};

/** Where a tool's code comes from, for the approval card; null for Pincer's own tools. */
export function sourceInWords(source: string | undefined): { kind: string; name: string } | null {
  if (!source || source === 'builtin') return null;
  const colon = source.indexOf(':');
  const [prefix, name] = colon < 0 ? [source, ''] : [source.slice(0, colon), source.slice(colon + 1)];
  if (prefix === 'plugin') return { kind: 'plugin', name };
  if (prefix === 'mcp') return { kind: 'MCP server', name };
  return { kind: prefix, name };
}

/** "it is marked destructive and its plugin reaches files beyond its own folder" */
export function joinReasons(reasons: readonly string[]): string {
  if (reasons.length <= 1) return reasons[0] ?? '';
  return `${reasons.slice(0, -1).join(', ')} and ${reasons.at(-1)}`;
}

export interface PermissionLine {
  label: string;
  /** `literal`: a host or path, shown as code; otherwise words. */
  values: { text: string; literal: boolean }[];
}

/** What a plugin may do, one line per kind; it always reads its own folder. */
export function permissionLines(p: PluginPermissions): PermissionLine[] {
  const literal = (items: string[]) => items.map((text) => ({ text, literal: true }));
  const words = (items: string[]) => items.map((text) => ({ text, literal: false }));
  const lines: PermissionLine[] = [];
  if (p.hosts.length > 0) lines.push({ label: 'Reaches hosts', values: literal(p.hosts) });
  lines.push({ label: 'Reads files', values: [...words(['its own folder']), ...literal(p.read)] });
  if (p.write.length > 0) lines.push({ label: 'Writes files', values: literal(p.write) });
  const running = [p.childProcess && 'starts processes', p.workers && 'runs worker threads', p.addons && 'loads native addons'].filter((v): v is string => !!v);
  if (running.length > 0) lines.push({ label: 'Runs code', values: words(running) });
  return lines;
}

/** True when it asks for nothing beyond its own folder. */
export function confined(p: PluginPermissions): boolean {
  return p.hosts.length + p.read.length + p.write.length === 0 && !p.childProcess && !p.workers && !p.addons;
}

/** "812 B", "4.2 KB", "12 MB": sizes as a person reads them (powers of 1024, one decimal below 10). */
export function sizeInWords(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** "3 files, 4.2 KB" */
export function filesInWords(count: number, bytes: number): string {
  return `${count} file${count === 1 ? '' : 's'}, ${sizeInWords(bytes)}`;
}

/**
 * The command that writes a new plugin into this gateway's folder. `pincer` looks in ~/.pincer unless told; a
 * gateway with another data folder needs it named.
 */
export function newPluginCommand(folder: string | null, name = 'my-tools'): string {
  const dataDir = folder?.replace(/[\\/]plugins[\\/]?$/, '');
  if (!dataDir || /[\\/]\.pincer$/.test(dataDir)) return `pincer plugin new ${name}`;
  const quoted = /^[\w@%+=:,./\\-]+$/.test(dataDir) ? dataDir : `'${dataDir.replaceAll("'", `'\\''`)}'`;
  return `pincer plugin new ${name} --data-dir ${quoted}`;
}

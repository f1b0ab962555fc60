// What only plugins have, in words: what a plugin may do, its files' sizes, the command that writes a new one. Pure,
// so the wording is tested without a browser.
import type { PluginPermissions } from '../../../../server/contract/sources';

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

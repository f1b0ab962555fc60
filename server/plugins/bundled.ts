import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { builtPath } from '../util/package-files.js';
import { findPlugins } from './discover.js';
import { hashPluginFolder } from './integrity.js';

/**
 * The bundled plugins' hashes as the package was built (`npm run build` writes them): the gateway trusts a bundled
 * plugin only while its folder still hashes to its record, so a bundled plugin edited afterwards (by a client's
 * file tool, say) is held like anyone's.
 */
export interface BundledRecord {
  plugins: Record<string, { hash: string; files: number; bytes: number }>;
}

/** Where the build keeps the record: inside the package, beside the compiled gateway. */
export function bundledRecordFile(): string {
  return builtPath('server', 'bundled-plugins.json');
}

/** The record, or null when there is none (or it cannot be read): then no bundled plugin is trusted as shipped. */
export function readBundledRecord(file: string): BundledRecord | null {
  if (!existsSync(file)) return null;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as BundledRecord;
    return record && typeof record.plugins === 'object' && record.plugins !== null ? record : null;
  } catch {
    return null;
  }
}

/** Hashes every plugin folder in `pluginsDir` (the package's `plugins/`) with the gateway's own hashing, into `file`. */
export function writeBundledRecord(pluginsDir: string, file: string): BundledRecord {
  const record: BundledRecord = { plugins: {} };
  for (const plugin of findPlugins([{ dir: pluginsDir, origin: 'bundled' }])) {
    const { hash, files, bytes } = hashPluginFolder(plugin.dir);
    record.plugins[plugin.name] = { hash, files: files.length, bytes };
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

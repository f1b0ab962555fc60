import { join } from 'node:path';
import { readConfigObject } from '../../config/config.js';
import { writeConfigFile } from '../../config/config-file.js';

/**
 * Adds, replaces or (with `entry` undefined) removes one `mcp_servers` entry in config.json, keeping everything else
 * in the file as it is.
 */
export function saveServerEntry(dataDir: string, name: string, entry: unknown): void {
  const file = join(dataDir, 'config.json');
  const config = readConfigObject(file);
  const current = config.mcp_servers;
  const servers: Record<string, unknown> = current && typeof current === 'object' && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
  if (entry === undefined) delete servers[name];
  else servers[name] = entry;
  if (Object.keys(servers).length > 0) config.mcp_servers = servers;
  else delete config.mcp_servers;
  writeConfigFile(file, config);
}

import { join } from 'node:path';
import { hashPluginFolder } from '../plugins/integrity.js';
import { writeApiShim } from '../plugins/discover.js';
import { readManifest } from '../plugins/manifest.js';
import { writeSkeleton } from '../plugins/skeleton.js';
import { configFrom, failed, ownerRequest, parse, request, table, UsageError, withCredentials, type Out } from './common.js';

const USAGE = 'pincer plugin new <name> | plugin [list] [--json] | plugin show <name> | plugin accept|disable|enable|rm <name>';
const SHOWN_FILES = 30;

interface PluginRow {
  name: string;
  origin: string;
  status: string;
  version: string | null;
  reason: string | null;
  tools: { name: string; registered: boolean }[];
}

interface PluginDetail extends PluginRow {
  description: string | null;
  entry: string | null;
  hash: string | null;
  permissions: { hosts: string[]; read: string[]; write: string[]; childProcess: boolean; workers: boolean; addons: boolean } | null;
  tools: { name: string; registered: boolean; risk: string; description: string }[];
  files: { path: string; size: number; link?: string }[];
  file_count: number;
  file_bytes: number;
}

/** `pincer plugin …`: write a new plugin, list them, and the owner's accept / disable / enable / rm. */
export async function plugin(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  const [action = 'list', name, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(USAGE);
  const config = configFrom(values);
  switch (action) {
    case 'new': {
      if (!name) throw new UsageError('usage: pincer plugin new <name>');
      const pluginsDir = join(config.dataDir, 'plugins');
      writeApiShim(pluginsDir);
      const { dir, tools } = writeSkeleton(pluginsDir, name);
      // The owner wrote it: it counts as accepted as written, so it loads with its tool on.
      const manifest = readManifest(dir, name);
      const { hash, files } = hashPluginFolder(dir);
      withCredentials(config, ({ store }) => store.plugins.accept({ name, hash, tools: manifest.tools, permissions: manifest.permissions, files }, 'owner'));
      out.log(`Wrote the plugin ${name} in ${dir}`);
      out.log(`Its tool ${tools[0]!.name} is on once a running gateway picks the folder up (at once) or at the next start.`);
      out.log(`Run its tests with: cd ${JSON.stringify(dir)} && node --test`);
      return 0;
    }
    case 'list': {
      if (name) throw new UsageError(USAGE);
      const { status, json } = await request(config, 'GET', '/plugins', undefined, { plugins: true });
      if (status !== 200) return failed(json, out);
      if (values.json) {
        out.log(JSON.stringify(json, null, 2));
        return 0;
      }
      const { plugins, folder } = json as { plugins: PluginRow[]; folder: string };
      if (plugins.length === 0) {
        out.log(`No plugins. Write one with "pincer plugin new <name>" (it goes to ${folder}).`);
        return 0;
      }
      out.log(
        table(
          ['PLUGIN', 'FROM', 'VERSION', 'STATUS', 'TOOLS', 'WHY'],
          plugins.map((p) => [p.name, p.origin, p.version ?? '-', p.status, p.tools.map((t) => t.name).join(', ') || '-', p.reason ?? '']),
        ),
      );
      return 0;
    }
    case 'show': {
      if (!name) throw new UsageError('usage: pincer plugin show <name>');
      const { status, json } = await request(config, 'GET', `/plugins/${encodeURIComponent(name)}`, undefined, { plugins: true });
      if (status !== 200) return failed(json, out);
      if (values.json) {
        out.log(JSON.stringify(json, null, 2));
        return 0;
      }
      for (const line of describePlugin(json as PluginDetail)) out.log(line);
      return 0;
    }
    case 'accept':
    case 'disable':
    case 'enable':
    case 'rm': {
      if (!name) throw new UsageError(`usage: pincer plugin ${action} <name>`);
      const path = `/plugins/${encodeURIComponent(name)}${action === 'rm' ? '' : `/${action}`}`;
      const { status, json } = await ownerRequest(config, action === 'rm' ? 'DELETE' : 'POST', path, undefined, { plugins: true });
      if (status !== 200) return failed(json, out);
      const view = json as PluginRow;
      out.log(action === 'rm' ? `Removed the plugin ${name}.` : `Plugin ${name}: ${view.status}${view.reason ? ` (${view.reason})` : ''}.`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}

/** What `pincer plugin show` prints: what accepting the plugin lets run, as the dashboard's card shows it. */
function describePlugin(p: PluginDetail): string[] {
  const lines = [`${p.name} ${p.version ?? ''} (${p.origin === 'bundled' ? 'bundled with Pincer' : 'your plugin'}): ${p.status}`.trim()];
  if (p.reason) lines.push(`  ${p.reason}`);
  if (p.description) lines.push(`  ${p.description}`);
  if (p.entry) lines.push(`  entry: ${p.entry}`);
  if (p.permissions) {
    const { hosts, read, write, childProcess, workers, addons } = p.permissions;
    const may = [
      hosts.length > 0 && `reach ${hosts.join(', ')}`,
      read.length > 0 && `read ${read.join(', ')}`,
      write.length > 0 && `write ${write.join(', ')}`,
      childProcess && 'start processes',
      workers && 'run worker threads',
      addons && 'load native addons',
    ].filter(Boolean);
    lines.push(`  may: read its own folder${may.length > 0 ? `, ${may.join(', ')}` : ''}`);
  }
  lines.push(`  tools (${p.tools.length}):`);
  for (const tool of p.tools) lines.push(`    ${tool.name} [${tool.risk}]${tool.description ? ` ${tool.description}` : ''}`);
  lines.push(`  files (${p.file_count}, ${p.file_bytes} bytes):`);
  for (const file of p.files.slice(0, SHOWN_FILES)) lines.push(`    ${file.path}${file.link ? ` -> ${file.link}` : ''}  ${file.size}`);
  if (p.file_count > SHOWN_FILES) lines.push(`    … and ${p.file_count - SHOWN_FILES} more (pincer plugin show ${p.name} --json lists ${Math.min(p.files.length, p.file_count)})`);
  if (p.hash) lines.push(`  hash: ${p.hash}`);
  if (p.status === 'new' || p.status === 'changed') lines.push(`Accept it with: pincer plugin accept ${p.name}`);
  return lines;
}

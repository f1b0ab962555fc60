import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isWithin } from '../security/within.js';
import { realPath } from '../security/shell/operand-places.js';
import { RESERVED_TOOL_NAMES, TOOL_NAME_PATTERN } from '../tools/registry.js';
import { RISKS, type Risk } from '../tools/types.js';
import type { PluginPermissions } from '../contract/sources.js';

export const MANIFEST_FILE = 'plugin.json';
export const PLUGIN_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const HOST_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ENTRY_PATTERN = /\.(?:js|mjs|ts|mts)$/;
const KEYS = ['name', 'version', 'description', 'entry', 'permissions', 'tools'];
const TOOL_KEYS = ['name', 'risk', 'description'];
const MAX_TOOLS = 200;
const MAX_MANIFEST_BYTES = 256 * 1024;
const PERMISSION_KEYS = ['hosts', 'read', 'write', 'childProcess', 'workers', 'addons'];

/** What a plugin may do beyond reading its own folder (paths absolute); enforced by Node's permission model and the gateway's fetch. */
export type { PluginPermissions };

/**
 * A tool as the manifest declares it: what the owner accepts before any of the plugin's code runs. The code's own
 * tools must match once it loads (the same names, no lower risk).
 */
export interface ManifestTool {
  name: string;
  risk: Risk;
  description?: string;
}

export interface PluginManifest {
  name: string;
  version: string;
  description: string;
  /** Relative to the plugin's folder. */
  entry: string;
  permissions: PluginPermissions;
  /** Absent in plugin.json: the plugin defines no tools. */
  tools: ManifestTool[];
}

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

/**
 * Reads and checks `plugin.json`; throws a ManifestError naming every problem. `unwritable`: Pincer's own folders
 * (package, bundled plugins, data), which no `permissions.write` path may reach; `unreadable`: its data folder, which
 * no `permissions.read` path may lead into.
 */
export function readManifest(dir: string, folderName: string, unwritable: readonly string[] = [], unreadable: readonly string[] = []): PluginManifest {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) throw new ManifestError(`no ${MANIFEST_FILE} in the folder`);
  let raw: unknown;
  try {
    raw = JSON.parse(readOwnFile(file));
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    throw new ManifestError(`${MANIFEST_FILE} is not valid JSON: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ManifestError(`${MANIFEST_FILE} must hold a JSON object`);
  const m = raw as Record<string, unknown>;
  for (const key of Object.keys(m)) if (!KEYS.includes(key)) problems.push(`unknown field "${key}"`);
  if (typeof m.name !== 'string' || !PLUGIN_NAME_PATTERN.test(m.name)) {
    problems.push('name must be 1–40 lower-case letters, digits, "-" or "_", starting with a letter or digit');
  } else if (m.name !== folderName) problems.push(`name "${m.name}" must be the folder's name, "${folderName}"`);
  if (typeof m.version !== 'string' || !/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/.test(m.version)) problems.push('version must be a semantic version such as 1.0.0');
  if (typeof m.description !== 'string' || m.description.length === 0 || m.description.length > 500) problems.push('description must be a string of 1–500 characters');
  const entry = typeof m.entry === 'string' ? m.entry : 'index.js';
  if (m.entry !== undefined && typeof m.entry !== 'string') problems.push('entry must be a relative path');
  else if (!ENTRY_PATTERN.test(entry)) problems.push('entry must be a .js, .mjs, .ts or .mts file');
  else if (isAbsolute(entry) || relative(dir, resolve(dir, entry)).startsWith('..')) problems.push('entry must lie inside the plugin folder');
  else if (!existsSync(join(dir, entry)) || !statSync(join(dir, entry)).isFile()) problems.push(`entry "${entry}" does not exist`);
  const permissions = readPermissions(m.permissions, problems, unwritable, unreadable);
  const tools = readTools(m.tools, problems);
  if (problems.length > 0) throw new ManifestError(`${MANIFEST_FILE}: ${problems.join('; ')}`);
  return { name: m.name as string, version: m.version as string, description: m.description as string, entry, permissions, tools };
}

/**
 * The manifest's text. Security: never through a link (the gateway itself reads it: a link to the owner secret
 * would put its text in a parse error shown to any client), and never more than a manifest needs.
 */
function readOwnFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new ManifestError(`${MANIFEST_FILE} must be a file of its own, not a link`);
    throw new ManifestError(`${MANIFEST_FILE} cannot be read: ${(error as Error).message}`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_MANIFEST_BYTES) throw new ManifestError(`${MANIFEST_FILE} is larger than ${MAX_MANIFEST_BYTES / 1024} KiB`);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function readTools(value: unknown, problems: string[]): ManifestTool[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_TOOLS) {
    problems.push(`tools must be a list of at most ${MAX_TOOLS} tools, each {"name", "risk", "description"?}`);
    return [];
  }
  const tools: ManifestTool[] = [];
  const seen = new Set<string>();
  value.forEach((item: unknown, i) => {
    const where = `tools[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) return void problems.push(`${where} must be an object {"name", "risk", "description"?}`);
    const t = item as Record<string, unknown>;
    const label = typeof t.name === 'string' ? `${where} ("${t.name}")` : where;
    const before = problems.length;
    for (const key of Object.keys(t)) if (!TOOL_KEYS.includes(key)) problems.push(`${label}: unknown field "${key}" (a tool is declared with name, risk and description)`);
    if (typeof t.name !== 'string' || !TOOL_NAME_PATTERN.test(t.name)) problems.push(`${where}: name must be 1–64 letters, digits, "_" or "-"`);
    else if (RESERVED_TOOL_NAMES.has(t.name.toLowerCase())) problems.push(`${label}: "${t.name}" is a reserved name`);
    else if (seen.has(t.name)) problems.push(`${label}: declared twice`);
    if (!RISKS.includes(t.risk as Risk)) problems.push(`${label}: risk must be ${RISKS.join(', ')}`);
    if (t.description !== undefined && (typeof t.description !== 'string' || t.description.length > 1000)) problems.push(`${label}: description must be a string of at most 1000 characters`);
    if (problems.length > before) return;
    seen.add(t.name as string);
    tools.push({ name: t.name as string, risk: t.risk as Risk, ...(typeof t.description === 'string' && t.description.trim() !== '' && { description: t.description }) });
  });
  return tools;
}

function readPermissions(value: unknown, problems: string[], unwritable: readonly string[], unreadable: readonly string[]): PluginPermissions {
  const none: PluginPermissions = { hosts: [], read: [], write: [], childProcess: false, workers: false, addons: false };
  if (value === undefined) return none;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    problems.push('permissions must be an object');
    return none;
  }
  const p = value as Record<string, unknown>;
  for (const key of Object.keys(p)) if (!PERMISSION_KEYS.includes(key)) problems.push(`unknown permission "${key}"`);
  const list = (key: string, check: (item: string) => string | undefined): string[] => {
    const items = p[key] ?? [];
    if (!Array.isArray(items) || items.length > 50 || !items.every((i) => typeof i === 'string')) {
      problems.push(`permissions.${key} must be a list of at most 50 strings`);
      return [];
    }
    return items.flatMap((item: string) => {
      const problem = check(item);
      if (problem) problems.push(`permissions.${key}: ${problem}`);
      return problem ? [] : [key === 'hosts' ? item.toLowerCase() : expandPath(item)];
    });
  };
  const flag = (key: string): boolean => {
    if (p[key] !== undefined && typeof p[key] !== 'boolean') problems.push(`permissions.${key} must be true or false`);
    return p[key] === true;
  };
  return {
    hosts: list('hosts', (h) => (HOST_PATTERN.test(h.toLowerCase()) ? undefined : `"${h}" is not a host name (no scheme, port or path)`)),
    read: list('read', (path) => pathProblem(path) ?? dataFolderRead(path, unreadable)),
    write: list('write', (path) => pathProblem(path) ?? ownFolderWrite(path, unwritable)),
    childProcess: flag('childProcess'),
    workers: flag('workers'),
    addons: flag('addons'),
  };
}

function pathProblem(path: string): string | undefined {
  if (!isAbsolute(path) && !path.startsWith('~/')) return `"${path}" must be an absolute path or start with ~/`;
  // Security: Node's permission flags take a list; a comma would smuggle a second path in on older versions.
  if (/[,\n\r*]/.test(path)) return `"${path}" may not contain commas, line breaks or wildcards`;
  return undefined;
}

/**
 * Security: write access at, inside or above Pincer's own folders would let the plugin change Pincer's code or
 * bundled plugins (which run unasked) or its tokens and database.
 */
function ownFolderWrite(path: string, unwritable: readonly string[]): string | undefined {
  const real = realPath(expandPath(path));
  const hit = unwritable.find((dir) => isWithin(real, dir) || isWithin(dir, real));
  if (hit === undefined) return undefined;
  return `"${path}" ${isWithin(real, hit) ? 'lies inside' : 'holds'} one of Pincer's own folders (${hit}: its code, bundled plugins or data), which no plugin may write`;
}

/**
 * Security: a read path that leads into the data folder (as written, or through a link) names its tokens and database.
 * The sandbox never shows them whatever the manifest says (a link can appear later); refusing here tells the owner.
 */
function dataFolderRead(path: string, unreadable: readonly string[]): string | undefined {
  const real = realPath(expandPath(path));
  const hit = unreadable.find((dir) => isWithin(real, dir));
  return hit === undefined ? undefined : `"${path}" leads into Pincer's data folder (${hit}), which no plugin may read`;
}

function expandPath(path: string): string {
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : resolve(path);
}

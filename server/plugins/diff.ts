import { isDeepStrictEqual } from 'node:util';
import type { HashedFile } from './integrity.js';

export interface FileChanges {
  added: string[];
  removed: string[];
  changed: string[];
  /** How many more changed paths there are than the lists show. */
  more: number;
}

export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: { name: string; fields: { field: string; before: unknown; after: unknown }[] }[];
  permissions: { before: unknown; after: unknown } | null;
  /** Which files differ; null when the acceptance did not record its files. */
  files: FileChanges | null;
}

/** A tool as compared: what the manifest declares of it (older acceptances recorded more, compared on these only). */
interface ComparedTool {
  name: string;
  risk?: unknown;
  description?: unknown;
}

const FIELDS = ['risk', 'description'] as const;
const MAX_LISTED_FILES = 100;

/** What differs between the plugin the owner accepted (tools, permissions, files) and the plugin now. */
export function diffPlugin(
  before: { tools: readonly ComparedTool[]; permissions: unknown; files: readonly HashedFile[] | null },
  after: { tools: readonly ComparedTool[]; permissions: unknown; files: readonly HashedFile[] },
): ToolChanges {
  const old = new Map(before.tools.map((t) => [t.name, t]));
  const now = new Map(after.tools.map((t) => [t.name, t]));
  const changed: ToolChanges['changed'] = [];
  for (const [name, tool] of now) {
    const was = old.get(name);
    if (!was) continue;
    const fields = FIELDS.filter((f) => !isDeepStrictEqual(was[f] ?? null, tool[f] ?? null)).map((field) => ({ field, before: was[field] ?? null, after: tool[field] ?? null }));
    if (fields.length > 0) changed.push({ name, fields });
  }
  return {
    added: [...now.keys()].filter((n) => !old.has(n)),
    removed: [...old.keys()].filter((n) => !now.has(n)),
    changed,
    permissions: isDeepStrictEqual(before.permissions, after.permissions) ? null : { before: before.permissions, after: after.permissions },
    files: before.files ? diffFiles(before.files, after.files) : null,
  };
}

function diffFiles(before: readonly HashedFile[], after: readonly HashedFile[]): FileChanges {
  const old = new Map(before.map((f) => [f.path, f]));
  const now = new Map(after.map((f) => [f.path, f]));
  const added = [...now.keys()].filter((p) => !old.has(p));
  const removed = [...old.keys()].filter((p) => !now.has(p));
  const changed = [...now.values()].filter((f) => {
    const was = old.get(f.path);
    return was !== undefined && (was.sha256 !== f.sha256 || was.link !== f.link);
  }).map((f) => f.path);
  // The plugin's own files before its dependencies': they are what the owner reads first.
  const lists = [added, removed, changed].map((list) => ownFirst(list));
  let left = MAX_LISTED_FILES;
  const [a, r, c] = lists.map((list) => {
    const shown = list.slice(0, Math.max(left, 0));
    left -= shown.length;
    return shown;
  });
  return { added: a!, removed: r!, changed: c!, more: added.length + removed.length + changed.length - (a!.length + r!.length + c!.length) };
}

/** Paths outside node_modules first, each group in path order. */
export function ownFirst<T extends string | { path: string }>(items: readonly T[]): T[] {
  const path = (item: T) => (typeof item === 'string' ? item : item.path);
  const dependency = (item: T) => /(^|\/)node_modules\//.test(path(item));
  return [...items].sort((a, b) => Number(dependency(a)) - Number(dependency(b)) || path(a).localeCompare(path(b)));
}

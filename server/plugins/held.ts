import type { PluginAcceptance } from '../store/index.js';
import type { BundledRecord } from './bundled.js';
import type { FoundPlugin, PluginOrigin } from './discover.js';
import { folderHash, type HashedFile } from './integrity.js';

export const CHANGED = 'Its files changed since the owner accepted it: its tools stay off until the owner accepts the change.';

/** Who "accepted" a bundled plugin that ran as built: kept so it can be disabled; never the owner's acceptance. */
export const BUNDLED_BY = 'bundled';

/**
 * Why the plugin must wait for the owner, or null when it may run: a user's plugin runs only as the owner accepted
 * it; a bundled one as Pincer was built with it, or as the owner accepted it since.
 */
export function heldBecause(
  found: FoundPlugin,
  hash: string,
  accepted: PluginAcceptance | undefined,
  bundledRecord: BundledRecord | null,
): { status: 'new' | 'changed'; reason: string } | null {
  if (accepted && accepted.accepted_by !== BUNDLED_BY && acceptedAsIs(accepted, hash)) return null;
  if (found.origin === 'bundled') {
    const built = bundledRecord?.plugins[found.name];
    if (built?.hash === hash) return null;
    const why = !bundledRecord
      ? 'Pincer has no record of the files it was built with (run npm run build)'
      : built
        ? 'Its files differ from those Pincer was built with'
        : 'Pincer was built without this plugin';
    return { status: 'changed', reason: `${why}: its tools stay off until the owner accepts it.` };
  }
  if (accepted) return { status: 'changed', reason: CHANGED };
  return { status: 'new', reason: 'A new plugin: none of its code runs, and its tools stay off, until the owner accepts it.' };
}

/**
 * The folder holds exactly the files the owner accepted: the same hash, or — for an acceptance recorded with the
 * folder hash of an earlier Pincer, whose format changed — the same files, path by path and content hash by content
 * hash, as recorded with it.
 */
function acceptedAsIs(accepted: PluginAcceptance, hash: string): boolean {
  if (accepted.hash === hash) return true;
  const files = recordedFiles(accepted.files);
  return files !== undefined && folderHash(files) === hash;
}

/** The files recorded with an acceptance, or undefined when none were (or they are not in the shape written). */
function recordedFiles(files: unknown[] | null): HashedFile[] | undefined {
  if (files === null) return undefined;
  const checked: HashedFile[] = [];
  for (const file of files) {
    const f = file as Partial<HashedFile> | null;
    if (!f || typeof f.path !== 'string' || typeof f.size !== 'number' || typeof f.sha256 !== 'string') return undefined;
    if (f.link !== undefined && typeof f.link !== 'string') return undefined;
    checked.push(f.link === undefined ? { path: f.path, size: f.size, sha256: f.sha256 } : { path: f.path, size: f.size, sha256: f.sha256, link: f.link });
  }
  return checked;
}

/** What a call to a tool of a held plugin answers (TOOL_HELD): why, and what releases it. */
export function heldToolMessage(name: string, tool: string, origin: PluginOrigin, status: 'new' | 'changed'): string {
  const state = origin === 'bundled' ? 'is bundled with Pincer but its files differ from those Pincer was built with' : status === 'new' ? 'is new' : 'changed since the owner accepted it';
  return (
    `The tool "${tool}" comes from the plugin "${name}", which ${state}: it stays off until the owner accepts the plugin ` +
    `(pincer plugin accept ${name}, or Accept in the dashboard's Plugins view). Tell the user; calling it again before then fails the same way.`
  );
}

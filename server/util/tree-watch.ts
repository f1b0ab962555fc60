import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface TreeWatchOptions {
  /** Relative paths (with `/`) whose changes do not matter; a folder that is ignored is not walked either. */
  ignore?: (relativePath: string) => boolean;
  /** Called once per burst of changes (after `debounceMs` of quiet). */
  onChange(): void;
  onError?(error: Error): void;
  debounceMs?: number;
  /** At most this many folders are watched; past it, `onError` says so once and deeper folders are not followed. */
  maxFolders?: number;
  /** For tests: the platform whose behaviour to use. */
  platform?: NodeJS.Platform;
}

export interface TreeWatch {
  close(): void;
}

const DEFAULT_MAX_FOLDERS = 10_000;

/**
 * Follows every change under a folder. macOS and Windows watch a tree natively. On Linux, Node 20's `recursive`
 * watch misses changes (a file removed and written again under a sub-folder made after it started is never
 * reported), so each folder gets a watcher of its own, and the set is brought up to date after every burst of
 * changes: a folder made later is followed, one removed is let go.
 */
export function watchTree(root: string, options: TreeWatchOptions): TreeWatch {
  const platform = options.platform ?? process.platform;
  const ignore = options.ignore ?? (() => false);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const fire = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (closed) return;
      if (platform === 'linux') sync();
      options.onChange();
    }, options.debounceMs ?? 300);
    timer.unref();
  };
  const seen = (folder: string) => (file: string | Buffer | null) => {
    const path = file === null ? folder : join(folder, String(file));
    const rel = relative(root, path).split(sep).join('/');
    if (rel !== '' && ignore(rel)) return;
    fire();
  };

  if (platform !== 'linux') {
    const watcher = watch(root, { recursive: true }, (_event, file) => seen(root)(file));
    watcher.on('error', (error) => options.onError?.(error));
    return {
      close() {
        closed = true;
        clearTimeout(timer);
        watcher.close();
      },
    };
  }

  const watchers = new Map<string, FSWatcher>();
  let warned = false;
  const max = options.maxFolders ?? DEFAULT_MAX_FOLDERS;
  function sync(): void {
    const wanted = new Set<string>();
    const walk = (folder: string) => {
      if (wanted.size >= max) {
        if (!warned) options.onError?.(new Error(`more than ${max} folders under ${root}: changes deeper in are not followed`));
        warned = true;
        return;
      }
      wanted.add(folder);
      let entries;
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        return; // gone already, or unreadable: nothing to follow
      }
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        const path = join(folder, entry.name);
        if (!ignore(relative(root, path).split(sep).join('/'))) walk(path);
      }
    };
    walk(root);
    for (const [folder, watcher] of watchers) {
      if (!wanted.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
    for (const folder of wanted) {
      if (watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, (_event, file) => seen(folder)(file));
        watcher.on('error', () => {
          // A folder removed while watched: the next sync lets it go.
          watcher.close();
          watchers.delete(folder);
          fire();
        });
        watchers.set(folder, watcher);
      } catch (error) {
        if (folder === root) options.onError?.(error as Error);
      }
    }
  }
  sync();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

import type { Db } from './db.js';

/** A client's latest write of one file (or folder) through Pincer. */
export interface FileWrite {
  /** Real absolute path. */
  path: string;
  client: string;
  tool: string;
  call_id: string;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * Which client wrote which file, and when: the record the approval card's provenance is read from. One row per
 * path and client (the latest write); rows older than the window the caller keeps are deleted as new ones come, and
 * the table never grows past `maxRows`.
 */
export class FileWriteStore {
  readonly #upsert;
  readonly #prune;
  readonly #cap;
  readonly #count;
  readonly #forget;

  constructor(private readonly db: Db) {
    this.#upsert = db.prepare<FileWrite>(
      `INSERT INTO file_writes (path, client, tool, call_id, at) VALUES (@path, @client, @tool, @call_id, @at)
       ON CONFLICT (path, client) DO UPDATE SET tool = excluded.tool, call_id = excluded.call_id, at = excluded.at
       WHERE excluded.at >= file_writes.at`,
    );
    this.#prune = db.prepare<[number]>('DELETE FROM file_writes WHERE at < ?');
    this.#count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM file_writes');
    this.#cap = db.prepare<[number]>(
      'DELETE FROM file_writes WHERE (path, client) IN (SELECT path, client FROM file_writes ORDER BY at LIMIT ?)',
    );
    this.#forget = db.prepare<[string]>('DELETE FROM file_writes WHERE path = ?');
  }

  /** Records writes; drops rows older than `keepSince` and the oldest beyond `maxRows`. */
  note(writes: readonly FileWrite[], keepSince: number, maxRows: number): void {
    this.db.transaction(() => {
      for (const write of writes) this.#upsert.run(write);
      this.#prune.run(keepSince);
      const over = this.#count.get()!.n - maxRows;
      if (over > 0) this.#cap.run(over);
    })();
  }

  /** The owner rewrote these files: what a client wrote there is gone. */
  forget(paths: readonly string[]): void {
    if (paths.length === 0) return;
    this.db.transaction(() => {
      for (const path of paths) this.#forget.run(path);
    })();
  }

  /** Writes since `since` of exactly these paths. */
  at(paths: readonly string[], since: number): FileWrite[] {
    const out: FileWrite[] = [];
    // In slices: SQLite limits the number of bound parameters.
    for (let i = 0; i < paths.length; i += 500) {
      const slice = paths.slice(i, i + 500);
      out.push(
        ...this.db
          .prepare<unknown[], FileWrite>(`SELECT * FROM file_writes WHERE path IN (${slice.map(() => '?').join(',')}) AND at >= ?`)
          .all(...slice, since),
      );
    }
    return out;
  }

  /** Writes since `since` of anything inside `folder` (not the folder itself). */
  under(folder: string, since: number, limit = 200): FileWrite[] {
    const prefix = folder.endsWith('/') ? folder : `${folder}/`;
    // Every path that starts with "folder/" sorts between "folder/" and "folder0" ('0' follows '/').
    const end = `${prefix.slice(0, -1)}0`;
    return this.db
      .prepare<[string, string, number, number], FileWrite>(
        'SELECT * FROM file_writes WHERE path > ? AND path < ? AND at >= ? ORDER BY at DESC LIMIT ?',
      )
      .all(prefix, end, since, limit);
  }
}

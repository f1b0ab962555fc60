import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** A prebuilt better-sqlite3 addon (the Electron build); Node's own build is used when absent. */
  nativeBinding?: string;
}

/** Opens (creating if needed) the database and brings it to the newest schema. */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    // WAL lets readers (dashboard, CLI) work while calls are recorded; NORMAL keeps every committed call across a
    // process crash (kill -9), which is the guarantee the history needs.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, MIGRATIONS);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) {
    throw new Error(
      `The database is at schema version ${current}, newer than this Pincer knows (${newest}); update Pincer or use another data directory.`,
    );
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      // Read again under the write lock: another process opening the same data directory at the same moment
      // (the CLI next to the gateway) may have applied this migration since the check above.
      if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

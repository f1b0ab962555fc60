import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Db } from '../../../server/store/db.js';
import { openStore } from '../../../server/store/index.js';
import { MIGRATIONS, type Migration } from '../../../server/store/migrations/index.js';
import { call, file, newDb, NEWEST, newStore, tableNames, userVersion, useTempStore } from './temp-store.js';

useTempStore();

describe('migrations', () => {
  it('run on a new file and set user_version to the newest migration', () => {
    const db = newDb();
    expect(userVersion(db)).toBe(NEWEST);
    expect(tableNames(db)).toEqual(expect.arrayContaining(['calls', 'clients', 'owner_sessions', 'tool_settings', 'used_login_codes']));
  });

  it('are a no-op when the database is reopened, and keep the data', () => {
    const first = openStore(file);
    first.calls.save(call({ id: 'c_kept' }));
    first.close();
    const second = newStore();
    expect(second.calls.get('c_kept')?.id).toBe('c_kept');
    expect(second.calls.count()).toBe(1);
    expect(userVersion(newDb())).toBe(NEWEST);
  });

  it('refuse a database from a newer Pincer with a message saying what to do', () => {
    const db = openDatabase(file);
    db.pragma(`user_version = ${NEWEST + 41}`);
    db.close();
    expect(() => openStore(file)).toThrow(
      new RegExp(`schema version ${NEWEST + 41}, newer than this Pincer knows \\(${NEWEST}\\); update Pincer or use another data directory`),
    );
  });

  it('roll a failing migration back completely and keep the migrations before it', () => {
    const db = newDb();
    const good: Migration = { version: NEWEST + 1, name: 'good', sql: 'CREATE TABLE good_one (id INTEGER PRIMARY KEY);' };
    const broken: Migration = {
      version: NEWEST + 2,
      name: 'broken',
      sql: `CREATE TABLE broken_one (id INTEGER PRIMARY KEY);
            CREATE INDEX broken_index ON broken_one (id);
            INSERT INTO good_one (id) VALUES (1);
            INSERT INTO no_such_table VALUES (1);`,
    };
    expect(() => migrate(db, [...MIGRATIONS, good, broken])).toThrow(/no_such_table/);
    const names = tableNames(db);
    expect(names).toContain('good_one');
    expect(names).not.toContain('broken_one');
    expect(names).not.toContain('broken_index');
    expect(db.prepare('SELECT count(*) AS n FROM good_one').get()).toEqual({ n: 0 });
    expect(userVersion(db)).toBe(NEWEST + 1);
  });

  it('skip a migration another connection applied between the version check and the transaction', () => {
    const next: Migration = { version: NEWEST + 1, name: 'next', sql: 'CREATE TABLE next_one (id INTEGER PRIMARY KEY);' };
    const list = [...MIGRATIONS, next];
    const mine = newDb();
    const theirs = newDb();
    // The other process (a CLI started at the same moment) wins the race right after this one reads the version.
    const pragma = mine.pragma.bind(mine);
    let raced = false;
    mine.pragma = ((source: string, options?: { simple?: boolean }) => {
      const result = pragma(source, options);
      if (!raced && source === 'user_version') {
        raced = true;
        migrate(theirs, list);
      }
      return result;
    }) as Db['pragma'];
    expect(() => migrate(mine, list)).not.toThrow();
    expect(raced).toBe(true);
    expect(userVersion(theirs)).toBe(NEWEST + 1);
  });

  it('turn on WAL mode', () => {
    expect(newDb().pragma('journal_mode', { simple: true })).toBe('wal');
  });
});

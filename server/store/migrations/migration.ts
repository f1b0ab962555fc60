/** One numbered migration: its number, a name for the log, and the SQL it runs in one transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

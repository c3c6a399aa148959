import fs from 'node:fs';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { GO_MYSQL_DSN } from '../config.js';
import { connectDatabase, type DialectName } from '../db/connect.js';
import { loadSqliteDriver } from '../db/sqlite-driver.js';

/** A new-api or one-api database opened for reading, with its tables and their columns. */
export interface SourceDb {
  dialect: DialectName;
  // The source's tables are not Tollway's: rows are read as plain records.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  kysely: Kysely<any>;
  /** Table name → its column names. */
  tables: Map<string, Set<string>>;
  close(): Promise<void>;
}

const isServerDsn = (dsn: string) => /^(postgres|postgresql|mysql|mariadb):\/\//.test(dsn) || GO_MYSQL_DSN.test(dsn);

/** Opens the source database named by a DSN in any form SQL_DSN accepts; a SQLite file is opened read-only and must exist. */
export async function openSource(dsn: string): Promise<SourceDb> {
  let dialect: DialectName;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let kysely: Kysely<any>;
  let close: () => Promise<void>;
  if (isServerDsn(dsn)) {
    const db = await connectDatabase(dsn, '', '--from');
    ({ dialect, kysely } = db);
    close = () => db.close();
  } else {
    // new-api's SQLITE_PATH may carry driver options (`one-api.db?_busy_timeout=30000`).
    const file = dsn.replace(/^(sqlite|file):(\/\/)?/, '').replace(/\?.*$/, '');
    if (!fs.existsSync(file)) throw new Error(`--from: no SQLite file at "${file}"`);
    const Sqlite = await loadSqliteDriver();
    const database = new Sqlite(file, { readonly: true, fileMustExist: true });
    dialect = 'sqlite';
    kysely = new Kysely({ dialect: new SqliteDialect({ database }) });
    close = () => kysely.destroy();
  }
  return { dialect, kysely, tables: await listColumns(dialect, kysely), close };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function listColumns(dialect: DialectName, k: Kysely<any>): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const add = (table: string, column: string) => {
    const key = table.toLowerCase();
    if (!out.has(key)) out.set(key, new Set());
    out.get(key)!.add(column.toLowerCase());
  };
  if (dialect === 'sqlite') {
    const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(k);
    for (const { name } of tables.rows) {
      const cols = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(k);
      for (const c of cols.rows) add(name, c.name);
    }
    return out;
  }
  const schema = dialect === 'postgres' ? sql`current_schema()` : sql`database()`;
  const rows = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name AS table_name, column_name AS column_name FROM information_schema.columns WHERE table_schema = ${schema}`.execute(
    k,
  );
  for (const r of rows.rows) add(r.table_name, r.column_name);
  return out;
}

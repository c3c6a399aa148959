import crypto from 'node:crypto';
import fs from 'node:fs';
import { Kysely, SqliteDialect, sql, type ControlledTransaction } from 'kysely';
import { GO_MYSQL_DSN } from '../config.js';
import { connectDatabase, type Db } from '../db/connect.js';
import { migrateToLatest, migrationNames } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { loadSqliteDriver } from '../db/sqlite-driver.js';
import { RefusedError } from './refused.js';

/**
 * A dry run writes nothing on any dialect. The import runs for real, then is undone:
 * - into a target migrated to the latest version: inside one transaction that is rolled back (only rows are written,
 *   never a table: even MySQL, whose DDL commits, rolls it back); nested transactions become savepoints;
 * - into a target not migrated yet (a missing SQLite file, an empty server database): into a scratch copy migrated
 *   there instead (SQLite: in memory; PostgreSQL and MySQL: a throwaway database on the same server, dropped after).
 * The report is the real run's, counted by the same code on the same dialect.
 */

/** The file format's read and write version bytes of a SQLite header (2: WAL, 1: rollback journal). */
const WAL_HEADER_BYTES = [18, 19] as const;

/** Kysely over a controlled transaction where `transaction()` opens a savepoint (rolled back when its body throws). */
function nested(trx: ControlledTransaction<Database>): Kysely<Database> {
  let n = 0;
  const transaction = () => ({
    execute: async <T>(body: (t: Kysely<Database>) => Promise<T>): Promise<T> => {
      const name = `dry_${++n}`;
      const point = await trx.savepoint(name).execute();
      try {
        const out = await body(point as unknown as Kysely<Database>);
        await point.releaseSavepoint(name).execute();
        return out;
      } catch (err) {
        await point.rollbackToSavepoint(name).execute();
        throw err;
      }
    },
  });
  return new Proxy(trx, {
    get(target, prop) {
      if (prop === 'transaction') return transaction;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as unknown as Kysely<Database>;
}

/** Runs `body` on the databases inside transactions that are always rolled back (the databases must be distinct or the same object). */
export async function withRollback<T>(main: Db, logs: Db | undefined, body: (main: Db, logs?: Db) => Promise<T>) {
  const open = async (db: Db) => {
    const trx = await db.kysely.startTransaction().execute();
    return { trx, db: { ...db, kysely: nested(trx) } as Db };
  };
  const m = await open(main);
  const l = logs && logs !== main ? await open(logs) : undefined;
  try {
    return await body(m.db, logs ? (l?.db ?? m.db) : undefined);
  } finally {
    await l?.trx.rollback().execute();
    await m.trx.rollback().execute();
  }
}

/** Where a dry run writes: the target itself (rolled back) or a scratch copy; `close` drops the scratch copy. */
export interface DryTarget {
  db: Db;
  scratch: boolean;
  close(): Promise<void>;
}

type State = 'ready' | 'empty' | 'behind';

async function migrationState(db: Db): Promise<State> {
  const tables = await db.kysely.introspection.getTables();
  if (tables.length === 0) return 'empty';
  if (!tables.some((t) => t.name === 'tollway_migrations')) return 'behind';
  const rows = await sql<{ name: string }>`SELECT name FROM tollway_migrations`.execute(db.kysely);
  const done = new Set(rows.rows.map((r) => r.name));
  return migrationNames.every((m) => done.has(m)) ? 'ready' : 'behind';
}

const sqliteFile = (dsn: string, sqlitePath: string) =>
  (dsn ? dsn.replace(/^(sqlite|file):(\/\/)?/, '') : sqlitePath).replace(/\?.*$/, '');

/** An in-memory SQLite database (empty, or a copy of `bytes`), migrated to the latest version. */
async function memorySqlite(bytes?: Buffer): Promise<Db> {
  const Sqlite = await loadSqliteDriver();
  // A copy of a WAL-mode file says so in its header (bytes 18 and 19): marked as a rollback-journal file, the copy
  // stays in memory instead of looking for a -wal file.
  if (bytes && bytes.length > WAL_HEADER_BYTES[1]) for (const at of WAL_HEADER_BYTES) bytes[at] = 1;
  const database = bytes ? new Sqlite(bytes) : new Sqlite(':memory:');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const db: Db = { kysely, dialect: 'sqlite', describe: 'sqlite (dry run, in memory)', close: () => kysely.destroy() };
  await migrateToLatest(db);
  return db;
}

/** The DSN naming another database on the same server. */
function otherDatabase(dsn: string, name: string): string {
  if (GO_MYSQL_DSN.test(dsn) && !dsn.includes('://')) return dsn.replace(/\)\/[^?]*/, `)/${name}`);
  const u = new URL(dsn);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A throwaway database beside the target's, with the target's character set on MySQL, migrated. */
async function scratchServer(target: Db, dsn: string, variable: string): Promise<DryTarget> {
  const name = `tollway_dry_run_${crypto.randomBytes(6).toString('hex')}`;
  let charset = '';
  if (target.dialect === 'mysql') {
    const row = await sql<{ c: string; o: string }>`
      SELECT DEFAULT_CHARACTER_SET_NAME AS c, DEFAULT_COLLATION_NAME AS o FROM information_schema.SCHEMATA
      WHERE SCHEMA_NAME = database()`.execute(target.kysely);
    const r = row.rows[0];
    if (r && /^\w+$/.test(r.c) && /^\w+$/.test(r.o)) charset = ` CHARACTER SET ${r.c} COLLATE ${r.o}`;
  }
  await sql.raw(`CREATE DATABASE ${name}${charset}`).execute(target.kysely);
  const drop = () => sql.raw(`DROP DATABASE IF EXISTS ${name}`).execute(target.kysely);
  let db: Db | undefined;
  try {
    db = await connectDatabase(otherDatabase(dsn, name), '', variable);
    await migrateToLatest(db);
  } catch (err) {
    await db?.close();
    await drop();
    throw err;
  }
  const scratch = db;
  return {
    db: scratch,
    scratch: true,
    close: async () => {
      await scratch.close();
      await drop();
      await target.close();
    },
  };
}

/** Raised when a dry run cannot be made without writing (a server database migrated part way). */
export class DryRunRefused extends RefusedError {}

/** Opens the database a dry run writes into, creating and migrating nothing in the target. */
export async function openDryTarget(dsn: string, sqlitePath: string, variable: string): Promise<DryTarget> {
  const isServer = /^[a-z]+:\/\//.test(dsn) && !/^(sqlite|file):/.test(dsn);
  if (!isServer && !GO_MYSQL_DSN.test(dsn)) {
    const file = sqliteFile(dsn, sqlitePath);
    if (!fs.existsSync(file)) {
      const db = await memorySqlite();
      return { db, scratch: true, close: () => db.close() };
    }
    const Sqlite = await loadSqliteDriver();
    const readonly = new Sqlite(file, { readonly: true, fileMustExist: true });
    const ro = new Kysely<Database>({ dialect: new SqliteDialect({ database: readonly }) });
    const probe: Db = { kysely: ro, dialect: 'sqlite', describe: 'sqlite', close: () => ro.destroy() };
    try {
      if ((await migrationState(probe)) === 'ready') {
        const db = await connectDatabase(dsn, sqlitePath, variable);
        return { db, scratch: false, close: () => db.close() };
      }
      // Not migrated yet: a copy in memory is migrated instead of the file.
      const db = await memorySqlite(readonly.serialize());
      return { db, scratch: true, close: () => db.close() };
    } finally {
      await probe.close();
    }
  }
  const target = await connectDatabase(dsn, '', variable);
  try {
    const state = await migrationState(target);
    if (state === 'ready') return { db: target, scratch: false, close: () => target.close() };
    if (state === 'behind')
      throw new DryRunRefused(
        `the database of ${variable} is not migrated to this version of Tollway: a dry run would have to migrate it (start Tollway once, then dry-run the import)`,
      );
    return await scratchServer(target, dsn, variable);
  } catch (err) {
    await target.close();
    throw err;
  }
}

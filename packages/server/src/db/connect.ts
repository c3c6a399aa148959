import fs from 'node:fs';
import path from 'node:path';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { ConfigError, GO_MYSQL_DSN } from '../config.js';
import { createPrivateFile, PRIVATE_DIR_MODE } from '../lib/private-files.js';
import type { Database } from './schema.js';
import { loadSqliteDriver } from './sqlite-driver.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** A short description for logs and /api/setup (never contains a password). */
  describe: string;
  close(): Promise<void>;
  /** SQLite's own handle (the one Kysely's single connection uses), for statements prepared once. */
  sqlite?: SqliteDatabase;
}

function mysqlOptions(dsn: string) {
  const go = GO_MYSQL_DSN.exec(dsn);
  if (go) {
    const [, user, password, hostPort, database] = go;
    const [host, port] = hostPort!.split(':');
    return { user: user!, password: password ?? '', host: host!, port: Number(port || 3306), database: database! };
  }
  const url = new URL(dsn);
  return {
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    host: url.hostname,
    port: Number(url.port || 3306),
    database: url.pathname.replace(/^\//, ''),
  };
}

async function createPostgres(dsn: string): Promise<Db> {
  const pg = (await import('pg')).default;
  // BIGINT (int8) and NUMERIC counts come back as strings by default; quota sums stay far below 2^53.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  const pool = new pg.Pool({ connectionString: dsn, max: 10 });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', describe: 'postgres', close: () => kysely.destroy() };
}

async function createMysql(dsn: string): Promise<Db> {
  const mysql = await import('mysql2');
  const pool = mysql.createPool({
    ...mysqlOptions(dsn),
    connectionLimit: 10,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
  });
  const kysely = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return { kysely, dialect: 'mysql', describe: 'mysql', close: () => kysely.destroy() };
}

async function createSqlite(file: string): Promise<Db> {
  const Sqlite = await loadSqliteDriver();
  // A new database file is created owner-only; SQLite gives its -wal and -shm files the same permissions.
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: PRIVATE_DIR_MODE });
    createPrivateFile(file);
  }
  const database = new Sqlite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { kysely, dialect: 'sqlite', describe: 'sqlite', close: () => kysely.destroy(), sqlite: database };
}

/** Opens the database named by a DSN (empty: SQLite at sqlitePath) and checks that it answers. */
export async function connectDatabase(dsn: string, sqlitePath: string, variable = 'SQL_DSN'): Promise<Db> {
  let db: Db;
  if (dsn.startsWith('postgres://') || dsn.startsWith('postgresql://')) db = await createPostgres(dsn);
  else if (dsn.startsWith('mysql://') || dsn.startsWith('mariadb://') || GO_MYSQL_DSN.test(dsn))
    db = await createMysql(dsn);
  else {
    const file = dsn ? dsn.replace(/^(sqlite|file):(\/\/)?/, '') : sqlitePath;
    try {
      db = await createSqlite(file);
    } catch (err) {
      throw new ConfigError(
        dsn ? variable : 'SQLITE_PATH',
        `cannot open SQLite file "${file}": ${(err as Error).message}`,
      );
    }
  }
  try {
    await db.kysely.selectNoFrom((eb) => eb.val(1).as('one')).execute();
  } catch (err) {
    await db.close().catch(() => undefined);
    throw new ConfigError(variable, `cannot connect to the ${db.dialect} database: ${(err as Error).message}`);
  }
  return db;
}

import fs from 'node:fs';
import path from 'node:path';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect } from 'kysely';
import { ConfigError, GO_MYSQL_DSN } from '../config.js';
import { createPrivateFile, PRIVATE_DIR_MODE } from '../lib/private-files.js';
import type { Database } from './schema.js';
import { startSqliteCheckpointer } from './sqlite-checkpointer.js';
import { ImmediateSqliteDialect } from './sqlite-dialect.js';
import { loadSqliteDriver, sqliteDriverPackage } from './sqlite-driver.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/** Connections each pool may open. */
const PG_POOL_MAX = 10;
const MYSQL_POOL_MAX = 10;

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** A short description for logs and /api/setup (never contains a password). */
  describe: string;
  close(): Promise<void>;
  /** SQLite's own handle (the one Kysely's single connection uses), for statements prepared once. */
  sqlite?: SqliteDatabase;
  /** The connection pool's counts now (PostgreSQL and MySQL; SQLite has one connection and no pool). */
  poolStats?(): PoolStats;
}

/** Connections of a pool: open ones, those of them idle, and queries waiting for one. */
export interface PoolStats {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

/** The length of a list mysql2 keeps inside its pool (undefined when a release renamed it: 0 then). */
const sizeOf = (list: unknown): number => {
  const n = (list as { length?: unknown } | undefined)?.length;
  return typeof n === 'number' ? n : 0;
};

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
  const pool = new pg.Pool({ connectionString: dsn, max: PG_POOL_MAX });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const poolStats = () => ({
    max: PG_POOL_MAX,
    total: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
  });
  return { kysely, dialect: 'postgres', describe: 'postgres', close: () => kysely.destroy(), poolStats };
}

async function createMysql(dsn: string): Promise<Db> {
  const mysql = await import('mysql2');
  const pool = mysql.createPool({
    ...mysqlOptions(dsn),
    connectionLimit: MYSQL_POOL_MAX,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
  });
  const kysely = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  // mysql2 keeps its counts in internal lists (_allConnections, _freeConnections, _connectionQueue).
  const inner = pool as unknown as Record<string, unknown>;
  const poolStats = () => ({
    max: MYSQL_POOL_MAX,
    total: sizeOf(inner._allConnections),
    idle: sizeOf(inner._freeConnections),
    waiting: sizeOf(inner._connectionQueue),
  });
  return { kysely, dialect: 'mysql', describe: 'mysql', close: () => kysely.destroy(), poolStats };
}

/** With `checkpointWarnings`, a file database's WAL checkpoints run in a worker thread (db/sqlite-checkpointer.ts). */
async function createSqlite(file: string, checkpointWarnings?: (message: string) => void): Promise<Db> {
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
  const kysely = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) });
  const checkpointer =
    checkpointWarnings && file !== ':memory:'
      ? startSqliteCheckpointer(database, file, sqliteDriverPackage(), checkpointWarnings)
      : undefined;
  const close = async () => {
    await checkpointer?.stop();
    await kysely.destroy();
  };
  return { kysely, dialect: 'sqlite', describe: 'sqlite', close, sqlite: database };
}

/**
 * Opens the database named by a DSN (empty: SQLite at sqlitePath) and checks that it answers. `checkpointWarnings`
 * (the server's own databases): SQLite's WAL checkpoints run off the event loop, failures reported there.
 */
export async function connectDatabase(
  dsn: string,
  sqlitePath: string,
  variable = 'SQL_DSN',
  checkpointWarnings?: (message: string) => void,
): Promise<Db> {
  let db: Db;
  if (dsn.startsWith('postgres://') || dsn.startsWith('postgresql://')) db = await createPostgres(dsn);
  else if (dsn.startsWith('mysql://') || dsn.startsWith('mariadb://') || GO_MYSQL_DSN.test(dsn))
    db = await createMysql(dsn);
  else {
    const file = dsn ? dsn.replace(/^(sqlite|file):(\/\/)?/, '') : sqlitePath;
    try {
      db = await createSqlite(file, checkpointWarnings);
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

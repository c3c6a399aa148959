import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';

/**
 * Kysely's SQLite dialect with transactions that take the write lock when they begin (BEGIN IMMEDIATE). The server's
 * connection is not the only writer of its file: the durable writer's log worker inserts from a connection of its
 * own (accounting/sqlite-log-worker.ts). A deferred transaction that read first and wrote after another connection
 * committed would fail at once (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out); an immediate one waits for
 * the lock at its start (busy_timeout) and never sees another writer's commit in between.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

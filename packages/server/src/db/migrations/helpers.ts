import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DialectName } from '../connect.js';

/** Column helpers that give the same behaviour on SQLite, PostgreSQL and MySQL/MariaDB. */
export function columns(dialect: DialectName) {
  return {
    /** Auto-increment integer primary key. */
    id<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
      if (dialect === 'postgres') return table.addColumn('id', 'serial', (c) => c.primaryKey());
      if (dialect === 'mysql') return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
      return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    },
    /** Long text; MySQL's TEXT cannot take a default, so defaults are set by the application there. */
    text: (c: ColumnDefinitionBuilder) => (dialect === 'mysql' ? c : c.notNull().defaultTo('')),
    longText: dialect === 'mysql' ? sql`longtext` : sql`text`,
  };
}

export type Migration = { up(db: Kysely<unknown>, dialect: DialectName): Promise<void> };

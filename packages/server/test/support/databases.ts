import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, type DialectName, type Db } from '../../src/db/connect.js';

/** The databases every data-layer test runs against; TEST_DIALECTS narrows it (e.g. `sqlite`). */
export const dialects: DialectName[] = (process.env.TEST_DIALECTS ?? 'sqlite,postgres,mysql')
  .split(',')
  .map((d) => d.trim()) as DialectName[];

/** Each dialect as the main database with the next one as the log database (one dialect alone: two of it). */
export const logDatabasePairs = dialects.map((main, i) => [main, dialects[(i + 1) % dialects.length]!] as const);

const PG_ADMIN = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_ADMIN = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export interface TestDatabase {
  dialect: DialectName;
  /** DSN of this test's own database (SQL_DSN form). */
  dsn: string;
  db: Db;
  /** Closes the connection and drops the database. */
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates a fresh, uniquely named database so runs never see each other's data. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const name = `tw_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-test-'));
    const file = path.join(dir, 'test.db');
    const db = await connectDatabase('', file);
    return {
      dialect,
      dsn: `sqlite:${file}`,
      db,
      drop: async () => {
        await db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = dialect === 'postgres' ? PG_ADMIN : MYSQL_ADMIN;
  const admin = await connectDatabase(adminUrl, '');
  const { sql } = await import('kysely');
  await sql
    .raw(`CREATE DATABASE ${name}${dialect === 'mysql' ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_bin' : ''}`)
    .execute(admin.kysely);
  const dsn = withDatabase(adminUrl, name);
  const db = await connectDatabase(dsn, '');
  return {
    dialect,
    dsn,
    db,
    drop: async () => {
      await db.close();
      await sql
        .raw(dialect === 'postgres' ? `DROP DATABASE IF EXISTS ${name}` : `DROP DATABASE IF EXISTS ${name}`)
        .execute(admin.kysely);
      await admin.close();
    },
  };
}

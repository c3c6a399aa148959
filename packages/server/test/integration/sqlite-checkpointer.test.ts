import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase, type Db } from '../../src/db/connect.js';
import { loadSqliteDriver, sqliteDriverPackage } from '../../src/db/sqlite-driver.js';
import { startSqliteCheckpointer } from '../../src/db/sqlite-checkpointer.js';

/** Rows of this many bytes: WAL pages enough to see where they end up. */
const ROW_BYTES = 64 * 1024;
const ROWS = 32;

describe('SQLite checkpoints in a worker thread', () => {
  const dirs: string[] = [];
  const open: Db[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  const fileIn = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-checkpoint-'));
    dirs.push(dir);
    return path.join(dir, 'main.db');
  };
  /** Two megabytes committed in one transaction on the handle. */
  const write = (h: NonNullable<Db['sqlite']>) => {
    h.exec('CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, body BLOB)');
    const insert = h.prepare('INSERT INTO blobs (body) VALUES (?)');
    h.transaction(() => {
      for (let i = 0; i < ROWS; i++) insert.run(Buffer.alloc(ROW_BYTES, i));
    })();
  };

  it('the server’s connection never checkpoints itself; the worker copies its commits into the database file', async () => {
    const file = fileIn();
    const warnings: string[] = [];
    const db = await connectDatabase('', file, 'SQL_DSN', (m) => warnings.push(m));
    open.push(db);
    expect(db.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = fs.statSync(file).size;
    write(db.sqlite!);
    // Committed: in the WAL, not yet in the database file.
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(ROWS * ROW_BYTES);
    expect(fs.statSync(file).size).toBe(before);
    await expect.poll(() => fs.statSync(file).size, { timeout: 5_000, interval: 50 }).toBeGreaterThan(ROWS * ROW_BYTES);
    expect(warnings).toEqual([]);
    // Readable on the connection, and once it closes the data is all in the database file.
    expect(db.sqlite!.prepare('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: ROWS });
  });

  it('without the option (importers, tools) the connection checkpoints by itself, as SQLite does', async () => {
    const db = await connectDatabase('', fileIn());
    open.push(db);
    expect(db.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it('a worker that fails gives the checkpoints back to the connection, with a warning', async () => {
    const Sqlite = await loadSqliteDriver();
    const file = fileIn();
    const handle = new Sqlite(file);
    handle.pragma('journal_mode = WAL');
    const warnings: string[] = [];
    // `node:path` loads but is no driver: the worker throws at start.
    const checkpointer = startSqliteCheckpointer(handle, file, 'node:path', (m) => warnings.push(m), 50);
    try {
      await expect.poll(() => warnings.length, { timeout: 5_000 }).toBe(1);
      expect(warnings[0]).toMatch(/checkpoint worker failed .*; the connection checkpoints by itself again/);
      expect(handle.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      await checkpointer.stop();
      handle.close();
    }
  });

  it('stops with a last checkpoint: the database file holds every commit when the worker ends', async () => {
    const Sqlite = await loadSqliteDriver();
    const file = fileIn();
    const handle = new Sqlite(file);
    handle.pragma('journal_mode = WAL');
    // An interval longer than the test: only the stop's checkpoint can copy the pages.
    const checkpointer = startSqliteCheckpointer(handle, file, sqliteDriverPackage(), () => undefined, 3_600_000);
    try {
      write(handle);
      expect(fs.statSync(file).size).toBeLessThan(ROWS * ROW_BYTES);
      await checkpointer.stop();
      expect(fs.statSync(file).size).toBeGreaterThan(ROWS * ROW_BYTES);
    } finally {
      handle.close();
    }
  });
});

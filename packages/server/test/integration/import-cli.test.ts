import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';
import { createSourceSchema, NEW_API, ONE_API, type AnyKysely } from '../support/newapi-schema.js';
import { seedNewApi, seedOneApi } from '../support/newapi-rows.js';

const ROOT = path.resolve(__dirname, '../../../..');
const TIMEOUT_MS = 120_000;

/** `npm run import` as an operator runs it (the same command line), on SQLite files. */
describe('npm run import (command line)', () => {
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  const run = (target: string, ...args: string[]) => {
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'packages/server/src/import/main.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: TIMEOUT_MS,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SQLITE_PATH: target, DATA_DIR: dir },
    });
    return { code: res.status, out: res.stdout, err: res.stderr };
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-import-'));
    for (const [name, schema, seed] of [
      ['new-api.db', NEW_API, seedNewApi],
      ['one-api.db', ONE_API, seedOneApi],
    ] as const) {
      const db = await connectDatabase('', file(name));
      await createSourceSchema(db.kysely, 'sqlite', schema);
      await seed(db.kysely, 'sqlite', 'http://127.0.0.1:9');
      await db.close();
    }
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('imports with progress and a summary, then a second run changes nothing', () => {
    const first = run(file('tollway.db'), '--from', file('new-api.db'), '--logs-since', '2000-01-02');
    expect(first.err).toMatch(/users: 4\/4 \(100%\) \d+ rows\/s ETA 0s/);
    expect(first.code).toBe(0);
    expect(first.out).toContain('Imported from new-api');
    expect(first.out).toContain('users: read 4, written 4, already present 0, skipped 0');
    expect(first.out).toContain('quota check users.quota: before 103201234, after 103201234 OK');
    expect(first.out).toMatch(/skipped 1: unknown to Tollway \(SomeFutureOption\)/);
    const second = run(file('tollway.db'), `--from=${file('new-api.db')}`);
    expect(second.code).toBe(0);
    expect(second.out).toContain('mode: rerun');
    expect(second.out).toContain('Nothing changed');
  });

  it('skips old logs with --logs-since and all logs with --no-logs', () => {
    const since = new Date(Date.now() - 30 * 86400_000).toISOString().slice(0, 10);
    const res = run(file('since.db'), '--from', `sqlite:${file('new-api.db')}`, '--logs-since', since);
    expect(res.out).toContain('logs: read 2, written 2');
    const none = run(file('none.db'), '--from', file('new-api.db'), '--no-logs');
    expect(none.err).toContain('logs: not imported (--no-logs)');
    expect(none.out).not.toContain('logs: read');
  });

  it("reads logs from new-api's separate log database with --logs-from", async () => {
    const logs = await connectDatabase('', file('new-api-logs.db'));
    await createSourceSchema(logs.kysely, 'sqlite', { logs: NEW_API.logs! });
    for (const id of [7, 8]) {
      await (logs.kysely as unknown as AnyKysely)
        .insertInto('logs')
        .values({
          id,
          user_id: 2,
          created_at: 1_700_000_000 + id,
          type: 2,
          content: '',
          username: 'alice',
          model_name: 'gpt-4o-mini',
          quota: 10,
          is_stream: 0,
          channel_id: 1,
          other: '',
        })
        .execute();
    }
    await logs.close();
    const res = run(file('split.db'), '--from', file('new-api.db'), '--logs-from', file('new-api-logs.db'));
    expect(res.code).toBe(0);
    expect(res.out).toContain('logs: read 2, written 2');
    expect(
      run(file('split.db'), '--from', file('new-api.db'), '--logs-from', file('new-api-logs.db'), '--no-logs').code,
    ).toBe(2);
  });

  it('a dry run writes nothing; another source into a filled database is refused with exit code 2', () => {
    const dry = run(file('dry.db'), '--from', file('new-api.db'), '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('dry run: nothing written');
    const after = run(file('dry.db'), '--from', file('new-api.db'));
    expect(after.out).toContain('mode: fresh');
    const refused = run(file('tollway.db'), '--from', file('one-api.db'));
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('run with --merge');
    const bad = run(file('x.db'), '--from', file('missing.db'));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('no SQLite file');
    expect(run(file('x.db')).code).toBe(2);
    const same = run(file('new-api.db'), '--from', `sqlite:${file('new-api.db')}?_busy_timeout=30000`);
    expect(same.code).toBe(2);
    expect(same.err).toContain('--from names the database Tollway writes');
  });
});

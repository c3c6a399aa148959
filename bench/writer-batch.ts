// Developer tool: the SQLite writer's cost per batch, alone (no relay). Applies `batches` batches of `size` relay-like
// records to a fresh SQLite database, either through Kysely's built queries or the prepared statements the writer
// uses. Count instructions with two batch counts under valgrind and take the difference (start-up cancels out):
// `valgrind --tool=callgrind node --import tsx bench/writer-batch.ts [batches] [size] [kysely|prepared]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LogType } from '@tollway/shared';
import { connectDatabase } from '../packages/server/src/db/connect.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { applyBatch, type WriteRecord } from '../packages/server/src/accounting/writer-apply.js';
import { sqliteBatchStatements } from '../packages/server/src/accounting/writer-sqlite.js';

const batches = Number(process.argv[2] ?? 100);
const size = Number(process.argv[3] ?? 10);
const mode = process.argv[4] ?? 'prepared';
/** Batches before the counted ones, so both counts include the same warm-up. */
const WARMUP_BATCHES = 50;
const OTHER = JSON.stringify({
  model_ratio: 0.075,
  completion_ratio: 4,
  group_ratio: 1,
  frt: 3,
  upstream_model_name: 'gpt-4o-mini',
  admin_info: { use_channel: [1] },
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-batch-'));
const db = await connectDatabase('', path.join(dir, 'bench.db'));
try {
  await migrateToLatest(db);
  const record = (i: number): WriteRecord => ({
    userId: 1,
    tokenId: 1,
    tokenLimited: true,
    channelId: 1,
    quota: 7,
    countsRequest: true,
    log: {
      user_id: 1,
      username: 'bench',
      token_name: 'bench',
      token_id: 1,
      model_name: 'gpt-4o-mini',
      is_stream: 0,
      group: 'default',
      ip: '127.0.0.1',
      request_id: `req${i}`,
      created_at: 1_700_000_000,
      type: LogType.Consume,
      content: '',
      quota: 7,
      prompt_tokens: 10,
      completion_tokens: 20,
      use_time: 0,
      channel_id: 1,
      channel_name: 'mock',
      other: OTHER,
    },
  });
  const sqlite = mode === 'prepared' ? sqliteBatchStatements(db.sqlite!) : undefined;
  let n = 0;
  for (let b = 0; b < WARMUP_BATCHES + batches; b++) {
    const records = Array.from({ length: size }, () => record(n++));
    await db.kysely
      .transaction()
      .execute((trx) => applyBatch(trx, `batch-${b}`, records, 1, { counters: true, logs: true, sqlite }));
  }
  const logs = await db.kysely
    .selectFrom('logs')
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  console.log(`${mode}: ${batches} batches of ${size} (+${WARMUP_BATCHES} warm-up); ${logs.n} log rows`);
} finally {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

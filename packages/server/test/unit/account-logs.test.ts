import type { Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { AccountLogs, type AccountLog } from '../../src/accounting/account-log.js';
import type { WriteRecord } from '../../src/accounting/writer-apply.js';

const trx = () => ({}) as Transaction<Database>;
const log = (content: string): AccountLog => ({ userId: 7, username: 'u', type: 1, content, quota: 100 });

/** Account logs with a log database of their own go to the writer after their transaction commits. */
describe('AccountLogs with a separate log database', () => {
  const setup = () => {
    const queued: WriteRecord[] = [];
    const logs = new AccountLogs(true);
    logs.useWriter({ enqueue: (r) => queued.push(r) });
    return { logs, queued };
  };

  it('queues nothing before the commit, then each log as a log-only record', async () => {
    const { logs, queued } = setup();
    const b = logs.batch();
    const t = trx();
    await b.add(t, log('a'));
    await b.add(t, log('b'));
    expect(queued).toHaveLength(0);
    b.committed();
    expect(
      queued.map((r) => ({ content: r.log?.content, quota: r.quota, logQuota: r.log?.quota, counts: r.countsRequest })),
    ).toEqual([
      { content: 'a', quota: 0, logQuota: 100, counts: false },
      { content: 'b', quota: 0, logQuota: 100, counts: false },
    ]);
    b.committed();
    expect(queued).toHaveLength(2);
  });

  it('a retried transaction replaces the logs of the attempt that rolled back', async () => {
    const { logs, queued } = setup();
    const b = logs.batch();
    await b.add(trx(), log('first attempt'));
    const retry = trx();
    await b.add(retry, log('second attempt'));
    b.committed();
    expect(queued.map((r) => r.log?.content)).toEqual(['second attempt']);
  });

  it('refuses to drop logs silently when no writer was attached', async () => {
    const b = new AccountLogs(true).batch();
    await b.add(trx(), log('x'));
    expect(() => b.committed()).toThrow('no writer for the log database');
  });
});

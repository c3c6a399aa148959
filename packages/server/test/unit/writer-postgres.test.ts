import type { Insertable, Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database, LogsTable } from '../../src/db/schema.js';
import { insertLogsPostgres } from '../../src/accounting/writer-postgres.js';
import { logRow } from '../support/log-row.js';

describe('PostgreSQL log inserts', () => {
  it('refuse a column name that is not a plain schema name before any SQL is sent', async () => {
    const sent: unknown[] = [];
    const trx = { executeQuery: (q: unknown) => sent.push(q) } as unknown as Transaction<Database>;
    const row = { ...logRow(), 'x") VALUES (1); DROP TABLE logs; --': 1 } as unknown as Insertable<LogsTable>;
    await expect(insertLogsPostgres(trx, [row])).rejects.toThrow(/unexpected column name/);
    expect(sent).toEqual([]);
  });

  it('send each run of rows with the same columns as one statement with one JSON parameter', async () => {
    const sent: { sql: string; parameters: readonly unknown[] }[] = [];
    const trx = {
      executeQuery: async (q: { sql: string; parameters: readonly unknown[] }) => void sent.push(q),
    } as unknown as Transaction<Database>;
    const rows = [
      logRow({ request_id: 'a' }),
      logRow({ request_id: 'b' }),
      { ...logRow({ request_id: 'c' }), other: undefined as unknown as string },
    ];
    await insertLogsPostgres(trx, rows);
    expect(sent).toHaveLength(2);
    expect(sent.map((q) => q.parameters.length)).toEqual([1, 1]);
    expect(JSON.parse(sent[0]!.parameters[0] as string).map((r: { request_id: string }) => r.request_id)).toEqual([
      'a',
      'b',
    ]);
    expect(sent[1]!.sql).not.toContain('"other"');
    expect(sent[0]!.sql).toContain('json_populate_recordset(NULL::logs, $1)');
  });
});

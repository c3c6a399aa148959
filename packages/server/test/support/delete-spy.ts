import type { KyselyPlugin } from 'kysely';
import type { Db } from '../../src/db/connect.js';
import { LogsStore } from '../../src/modules/logs/store.js';

/** A LogsStore over `db` that records how many rows each DELETE statement removed, in order. */
export function spiedLogsStore(db: Db): { store: LogsStore; deletedPerStatement: number[] } {
  const deletedPerStatement: number[] = [];
  const deletes = new WeakSet<object>();
  const spy: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      if (node.kind === 'DeleteQueryNode') deletes.add(queryId);
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      if (deletes.has(queryId)) deletedPerStatement.push(Number(result.numAffectedRows));
      return result;
    },
  };
  return { store: new LogsStore({ ...db, kysely: db.kysely.withPlugin(spy) }), deletedPerStatement };
}

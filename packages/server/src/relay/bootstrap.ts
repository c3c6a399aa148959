import type { AppContext } from '../context.js';
import { TokenAuthCache } from './auth-cache.js';
import { QuotaLedger } from './ledger.js';
import type { RelayServices } from './services.js';
import { createUpstreamAgent } from './upstream-agent.js';
import { DurableWriter } from './writer.js';

/**
 * Builds the relay's services: token cache, quota ledger, durable writer (journal replayed first) and the
 * upstream connection pools. Keeps them coherent with account changes on this node and, via the bus, others.
 */
export async function createRelayServices(ctx: AppContext): Promise<RelayServices & { close(): Promise<void> }> {
  const k = ctx.db.kysely;
  const ledger = new QuotaLedger(
    async (ids) => new Map((await k.selectFrom('users').select(['id', 'quota']).where('id', 'in', ids).where('deleted_at', 'is', null).execute()).map((r) => [r.id, Number(r.quota)])),
    async (ids) => new Map((await k.selectFrom('tokens').select(['id', 'remain_quota']).where('id', 'in', ids).execute()).map((r) => [r.id, Number(r.remain_quota)])),
  );
  const writer = new DurableWriter(ctx.db, {
    dataDir: ctx.config.dataDir,
    log: ctx.log,
    onCommitted: (records) => {
      for (const r of records) if (r.quota) ledger.flushed(r.userId, r.tokenLimited ? r.tokenId : undefined, r.quota);
    },
  });
  await writer.start();
  const tokens = new TokenAuthCache(ctx.db, ctx.config.syncFrequency * 1000);
  const agent = createUpstreamAgent({ bodyTimeoutMs: ctx.config.streamingTimeout * 1000 });

  /** Re-reads balances from the database between writer batches, so unwritten amounts are not lost. */
  const refreshBalances = (kind: 'users' | 'tokens', id: number) =>
    writer.afterCurrentBatch(async () => {
      const book = kind === 'users' ? ledger.users : ledger.tokens;
      if (!book.entries.has(id)) return;
      const row =
        kind === 'users'
          ? await k.selectFrom('users').select('quota as v').where('id', '=', id).executeTakeFirst()
          : await k.selectFrom('tokens').select('remain_quota as v').where('id', '=', id).executeTakeFirst();
      if (row) book.rebase(id, Number(row.v));
      else book.entries.delete(id);
    });
  const userChanged = (id: number) => {
    tokens.invalidateUser(id);
    void refreshBalances('users', id).catch((err) => ctx.log.warn({ err }, 'balance refresh failed'));
  };
  ctx.users.onChanged((id) => {
    userChanged(id);
    void ctx.bus.publish('users', String(id)).catch(() => undefined);
  });
  ctx.bus.subscribe('users', (msg) => userChanged(Number(msg)));
  const tokenChanged = (key: string, id: number) => {
    tokens.invalidateKey(key);
    void refreshBalances('tokens', id).catch((err) => ctx.log.warn({ err }, 'balance refresh failed'));
  };
  ctx.bus.subscribe('tokens', (msg) => {
    const at = msg.lastIndexOf(':');
    tokenChanged(msg.slice(0, at), Number(msg.slice(at + 1)));
  });

  return {
    tokens,
    ledger,
    writer,
    agent,
    tokenChanged(key, id) {
      tokenChanged(key, id);
      void ctx.bus.publish('tokens', `${key}:${id}`).catch(() => undefined);
    },
    async close() {
      await writer.stop();
      await agent.close();
    },
  };
}

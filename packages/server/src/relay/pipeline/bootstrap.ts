import path from 'node:path';
import type { AppContext } from '../../context.js';
import { Mailer } from '../../lib/mailer.js';
import { isUsableGroup } from '../../modules/groups/usable.js';
import { QuotaWarnings } from '../../modules/notifications/quota-warnings.js';
import { TokenAuthCache } from '../entry/auth-cache.js';
import { MemoryLedger, payerOf, type BalanceKind, type Ledger } from '../../accounting/ledger.js';
import { RedisLedger } from '../../accounting/redis-ledger.js';
import { countPeriodLimits } from '../limits/period-ledger.js';
import { BudgetAlerts } from '../../modules/budgets/alerts.js';
import { periodLimitsOf } from '../../core/period-limits/service.js';
import { planBalanceLoader } from '../../core/subscriptions/balances.js';
import type { RelayServices } from './services.js';
import { RelaySettingsCache } from './settings.js';
import { UpstreamPools } from '../upstream/pools.js';
import { DurableWriter } from '../../accounting/writer.js';
import { writerMetrics } from '../../observability/writer-metrics.js';
import { startResponseCache } from '../cache/setup.js';
import { routeByStrategies } from '../billing/route-price.js';

/** In DATA_DIR: the Redis node id of the process running on this data folder. */
const REDIS_NODE_ID_FILE = 'redis-node-id';

/**
 * Builds the relay's services: token cache, quota ledger, durable writer (journal replayed first) and the
 * upstream connection pools. Keeps them coherent with account changes on this node and, via the bus, others.
 */
export async function createRelayServices(
  ctx: AppContext,
): Promise<RelayServices & { close(deadline?: number): Promise<void> }> {
  const k = ctx.db.kysely;
  // Low-quota warnings are decided from committed balances, after each batch, off the relay's path.
  const quotaWarnings = new QuotaWarnings(ctx.db, ctx.options, new Mailer(ctx.options), ctx.log);
  const writer = new DurableWriter(ctx.db, {
    logDb: ctx.logDb,
    dataDir: ctx.config.dataDir,
    fsync: ctx.config.journalFsync,
    fsyncIntervalMs: ctx.config.journalFsyncIntervalMs,
    log: ctx.log,
    hourlyUsage: () => ctx.options.bool('DataExportEnabled'),
    beforeApply: (records) => ledger.beforeCommit(records),
    onApplyFailed: (records) => {
      writerMetrics.failed();
      ledger.commitFailed(records);
    },
    // A dropped copy (a task refund applied before) may have moved a live balance the database never followed.
    onDropped: (records) => {
      for (const r of records) {
        const payer = payerOf(r);
        void ledger
          .refresh(payer.kind, payer.id)
          .catch((err: unknown) => ctx.log.warn({ err }, 'ledger: re-reading a balance failed'));
        if (r.tokenLimited && r.tokenId)
          void ledger
            .refresh('tokens', r.tokenId)
            .catch((err: unknown) => ctx.log.warn({ err }, 'ledger: re-reading a balance failed'));
      }
    },
    onCommitted: (records) => {
      writerMetrics.committed(records.length);
      ledger.committed(records);
      quotaWarnings.charged(new Set(records.filter((r) => r.quota !== 0).map((r) => r.userId)));
    },
  });
  const loadUsers = async (ids: number[]) =>
    new Map(
      (
        await k
          .selectFrom('users')
          .select(['id', 'quota'])
          .where('id', 'in', ids)
          .where('deleted_at', 'is', null)
          .execute()
      ).map((r) => [r.id, Number(r.quota)]),
    );
  const loadTokens = async (ids: number[]) =>
    new Map(
      (await k.selectFrom('tokens').select(['id', 'remain_quota']).where('id', 'in', ids).execute()).map((r) => [
        r.id,
        Number(r.remain_quota),
      ]),
    );
  const loadPlans = planBalanceLoader(ctx.db);
  // One node keeps balances in memory; a cluster (REDIS_CONN_STRING) keeps them in Redis so reservations are
  // atomic across every node.
  const balances: Ledger = ctx.redis
    ? new RedisLedger(ctx.redis, ctx.config.redisKeyPrefix, loadUsers, loadTokens, {
        log: ctx.log,
        reconcileIntervalMs: ctx.config.redisReconcileInterval * 1000,
        nodeIdFile: path.join(ctx.config.dataDir, REDIS_NODE_ID_FILE),
        loadPlans,
      })
    : new MemoryLedger(loadUsers, loadTokens, (fn) => writer.afterCurrentBatch(fn), loadPlans);
  // Period limits (quota per day, week, month, 5 hours) count every hold in front of the balances.
  // Organization budgets count in the same take; their alerts are checked after a settlement, off the call's path.
  const limits = periodLimitsOf(ctx);
  const { db, options, secretBox, log } = ctx;
  const alerts = new BudgetAlerts({ db, options, secretBox, log, mailer: new Mailer(options), limits });
  const ledger = countPeriodLimits(
    balances,
    limits,
    (err) => ctx.log.warn({ err }, 'period limits: moving a counter failed'),
    (p, at) => alerts.settled(p, at),
  );
  await writer.start();
  writerMetrics.watch(writer);
  // After the journal's replay: the first reconcile sees the database with every bill a crash left.
  await ledger.start();
  ctx.accountLogs.useWriter(writer);
  const tokens = new TokenAuthCache(
    ctx.db,
    ctx.config.syncFrequency * 1000,
    (userGroup, group) => isUsableGroup(ctx.options, userGroup, group),
    (key) => ctx.secretBox.sealFixed(key),
  );
  const upstream = new UpstreamPools(
    { maxConnsPerHost: ctx.config.relayMaxConnsPerHost, http2: ctx.config.relayHttp2 },
    ctx.config.streamingTimeout * 1000,
    ctx.log,
  );
  // A deleted or changed channel's own pools close once their calls finish.
  ctx.channelCache.onReload(() => upstream.channelsChanged(ctx.channelCache));
  routeByStrategies(ctx);

  // A balance changed outside the relay: the memory ledger of every node re-reads it; a Redis ledger is
  // shared, so only the node where the change happened rebuilds it.
  const refresh = async (kind: BalanceKind, id: number, local: boolean) => {
    if (local || !ctx.redis)
      await ledger.refresh(kind, id).catch((err) => ctx.log.warn({ err }, 'balance refresh failed'));
  };
  const userChanged = (id: number, local: boolean) => {
    tokens.invalidateUser(id);
    return refresh('users', id, local);
  };
  ctx.users.onChanged(async (id) => {
    await Promise.all([userChanged(id, true), quotaWarnings.accountChanged(id)]);
    void ctx.bus.publish('users', String(id)).catch(() => undefined);
  });
  ctx.bus.subscribe('users', (msg) => void userChanged(Number(msg), false));
  const tokenChanged = (key: string, id: number, local: boolean) => {
    tokens.invalidateKey(key);
    void refresh('tokens', id, local);
  };
  ctx.bus.subscribe('tokens', (msg) => {
    const at = msg.lastIndexOf(':');
    tokenChanged(msg.slice(0, at), Number(msg.slice(at + 1)), false);
  });
  const tokenChangedHere = (key: string, id: number) => {
    tokenChanged(key, id, true);
    void ctx.bus.publish('tokens', `${key}:${id}`).catch(() => undefined);
  };
  ctx.tokenChanges.on(tokenChangedHere);
  // A subscription's balance changed outside the relay (a period reset, an import): re-read it.
  ctx.planChanges.on(async (id) => {
    void ctx.bus.publish('plans', String(id)).catch(() => undefined);
    await refresh('plans', id, true);
  });
  ctx.bus.subscribe('plans', (msg) => void refresh('plans', Number(msg), false));
  ctx.walletHolds.bind(async (userId, amount) => {
    const target = { userId, tokenId: undefined };
    const hold = await ledger.reserve(target, amount);
    if (typeof hold === 'string') return undefined;
    return { release: () => ledger.settle(target, hold, 0).then(() => undefined) };
  });

  return {
    tokens,
    ledger,
    writer,
    upstream,
    settings: new RelaySettingsCache(ctx.options),
    responseCache: await startResponseCache(ctx),
    quotaWarnings,
    tokenChanged: tokenChangedHere,
    /** `deadline` (epoch ms) bounds the writer's wait for calls settling and its retries. */
    async close(deadline?: number) {
      await writer.stop(deadline === undefined ? undefined : Math.max(0, deadline - Date.now()));
      writerMetrics.unwatch(writer);
      await ledger.stop();
      await quotaWarnings.close();
      await upstream.close();
    },
  };
}

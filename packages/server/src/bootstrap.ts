import { ChannelAffinity } from './core/routing/affinity.js';
import type { Logger } from 'pino';
import { SubscriptionPeriods } from './modules/subscriptions/periods.js';
import { WalletHolds } from './core/subscriptions/wallet-holds.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { connectDatabase, type Db } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { connectRedis, connectRedisBus, LocalBus, type ClusterBus } from './lib/cluster-bus.js';
import { MemoryWindowCounters, rateLimiterOver, RedisWindowCounters } from './lib/window-counters.js';
import { resolveSessionSecret } from './lib/secrets.js';
import { SecretBox } from './lib/secret-box.js';
import { sealSecretsAtRest } from './db/secrets-at-rest.js';
import { SessionSealer } from './modules/auth/session.js';
import { SessionPrune } from './modules/auth/session-prune.js';
import { ldapRevalidationOf } from './modules/ldap/revalidate.js';
import { sessionStoreOf } from './modules/auth/sessions.js';
import { endSessionsWhenSwitchedOff } from './modules/auth/sign-in-switches.js';
import { SIGN_IN_SWITCHES } from './sign-in-switches.js';
import { ChangeEvents } from './core/change-events.js';
import { ChannelCache } from './core/routing/channel-cache.js';
import { startBreakers } from './core/routing/breaker-start.js';
import { ChannelsService } from './modules/channels/service.js';
import { AccountLogs } from './accounting/account-log.js';
import { LogRetention } from './modules/logs/retention.js';
import { AuditStore } from './modules/audit/store.js';
import { TopUpExpiry } from './modules/topup/expiry.js';
import { TopUpStore } from './modules/topup/store.js';
import { LogsStore } from './modules/logs/store.js';
import { mcpHealthOf } from './modules/mcp-servers/health.js';
import { OptionsService } from './core/options/service.js';
import { OptionsStore } from './core/options/store.js';
import { SetupService } from './modules/setup/service.js';
import { startObservability } from './observability/start.js';
import {
  createRelayServices,
  providerCatalog,
  startTaskPoller,
  testChannelUpstream,
  listMcpServerTools,
  type RelayContext,
  type TaskPoller,
} from './relay/index.js';
import { UserAdminService } from './modules/users/admin.js';
import { UsersService } from './modules/users/service.js';
import { UsersStore } from './modules/users/store.js';

export interface Runtime {
  ctx: RelayContext;
  /** The log retention job (master node only). */
  logRetention: LogRetention | undefined;
  /** Marks unpaid top-up orders expired (master node only). */
  topUpExpiry: TopUpExpiry | undefined;
  /** Ends subscriptions past their end and resets their periods (every node; each row changes once). */
  subscriptionPeriods: SubscriptionPeriods;
  /** Deletes expired console sessions (master node only). */
  sessionPrune: SessionPrune | undefined;
  /** Polls unfinished tasks (every node; one at a time holds its lease). */
  taskPoller: TaskPoller;
  /** Stops timers and closes the database. */
  close(opts?: { deadline?: number }): Promise<void>;
}

/** Connects the database, applies migrations, loads options and wires services. */
export async function createRuntime(config: Config, log: Logger, opts: { db?: Db; logDb?: Db } = {}): Promise<Runtime> {
  const stopObservability = startObservability(config, log);
  const redis = config.redisConnString ? await connectRedis(config.redisConnString) : undefined;
  const checkpointWarnings = (message: string) => log.warn(message);
  const db = opts.db ?? (await connectDatabase(config.sqlDsn, config.sqlitePath, 'SQL_DSN', checkpointWarnings));
  const applied = await migrateToLatest(db);
  if (applied.length) log.info({ applied, dialect: db.dialect }, 'migrations applied');
  // LOG_SQL_DSN: the logs table lives in its own database (the same migrations run there; only logs and the
  // writer's batch markers are used in it).
  const logDb =
    opts.logDb ??
    (config.logSqlDsn ? await connectDatabase(config.logSqlDsn, '', 'LOG_SQL_DSN', checkpointWarnings) : db);
  if (logDb !== db) {
    const logApplied = await migrateToLatest(logDb);
    if (logApplied.length) log.info({ applied: logApplied, dialect: logDb.dialect }, 'log database migrations applied');
  }
  const accountLogs = new AccountLogs(logDb !== db);
  const bus: ClusterBus = redis ? await connectRedisBus(redis, config.redisKeyPrefix, log) : new LocalBus();
  // Secrets at rest: a missing or wrong CRYPTO_SECRET stops start-up here; plaintext secrets are sealed in place.
  const secretBox = new SecretBox(config.cryptoSecret);
  await sealSecretsAtRest(db, secretBox, log);
  const options = new OptionsService(new OptionsStore(db), secretBox);
  await options.load();
  // An option saved on one node reaches the others at once through Redis (else on the next periodic sync).
  options.onSaved(
    (key) => void bus.publish('options', key).catch((err) => log.warn({ err }, 'option broadcast failed')),
  );
  bus.subscribe('options', () => void options.load().catch((err) => log.warn({ err }, 'option reload failed')));
  const usersStore = new UsersStore(db, secretBox);
  const users = new UsersService(usersStore, options, accountLogs);
  endSessionsWhenSwitchedOff(options, users.credentials, SIGN_IN_SWITCHES);
  const setup = new SetupService(db, users, options, config.version);
  await setup.load();
  const breakers = startBreakers(options, redis, bus, config.redisKeyPrefix, log);
  const channelCache = new ChannelCache(db, secretBox, breakers.breakers);
  await channelCache.reload();
  bus.subscribe(
    'channels',
    () => void channelCache.reload().catch((err) => log.warn({ err }, 'channel reload failed')),
  );
  const channels = new ChannelsService(
    db,
    channelCache,
    options,
    bus,
    log,
    secretBox,
    providerCatalog,
    breakers.breakers,
  );
  const affinity = new ChannelAffinity(
    options,
    channelCache,
    breakers.breakers,
    redis ? { client: redis, keyPrefix: config.redisKeyPrefix } : undefined,
  );
  const counters = redis ? new RedisWindowCounters(redis, config.redisKeyPrefix) : new MemoryWindowCounters();
  const base: AppContext = {
    config,
    db,
    logDb,
    accountLogs,
    log,
    options,
    secretBox,
    sessions: new SessionSealer(resolveSessionSecret(config.sessionSecret, config.dataDir, log)),
    counters,
    rateLimiter: rateLimiterOver(counters),
    redis,
    usersStore,
    users,
    userAdmin: new UserAdminService(users),
    setup,
    bus,
    channelCache,
    breakers: breakers.breakers,
    affinity,
    channels,
    // The relay's services join `base` below, before any probe runs.
    channelProbe: (channel, model) => testChannelUpstream(base, channel, model),
    mcpTools: (id) => listMcpServerTools(ctx, id),
    tokenChanges: new ChangeEvents(),
    planChanges: new ChangeEvents(),
    walletHolds: new WalletHolds(),
    providers: providerCatalog,
    startedAt: Date.now(),
  };
  const relay = await createRelayServices(base);
  const ctx: RelayContext = Object.assign(base, { relay });
  // MCP servers' breakers hear other nodes' openings from the start, not only once this node serves MCP.
  mcpHealthOf(ctx);
  // Other nodes' option changes arrive by periodic reload (SYNC_FREQUENCY seconds).
  const sync = setInterval(() => {
    Promise.all([options.load(), setup.load(), channelCache.reload()]).catch((err) =>
      log.warn({ err }, 'option sync failed'),
    );
  }, config.syncFrequency * 1000);
  sync.unref();
  // Auto-disabled channels are re-tested every CHANNEL_TEST_FREQUENCY minutes (master only) for auto-enable.
  const stopChannelTests =
    config.nodeType === 'master' && config.channelTestFrequency > 0
      ? channels.tester.schedule(ctx, config.channelTestFrequency)
      : () => undefined;
  // Logs older than LogRetentionDays are deleted in small batches in the background (master only).
  const logRetention =
    config.nodeType === 'master'
      ? new LogRetention([new LogsStore(logDb), new AuditStore(logDb)], options, log)
      : undefined;
  logRetention?.start();
  const topUpExpiry = config.nodeType === 'master' ? new TopUpExpiry(new TopUpStore(db, accountLogs), log) : undefined;
  topUpExpiry?.start();
  // Every node may run it (its statements are conditional): subscriptions end and reset on time without a master.
  const subscriptionPeriods = new SubscriptionPeriods(ctx);
  subscriptionPeriods.start();
  const sessionPrune = config.nodeType === 'master' ? new SessionPrune(sessionStoreOf(ctx), log) : undefined;
  sessionPrune?.start();
  // Directory sessions are checked against the directory every LDAPRevalidateSeconds (master only).
  const ldapRevalidation = config.nodeType === 'master' ? ldapRevalidationOf(ctx) : undefined;
  ldapRevalidation?.start();
  const taskPoller = startTaskPoller(ctx);
  return {
    ctx,
    logRetention,
    topUpExpiry,
    subscriptionPeriods,
    sessionPrune,
    taskPoller,
    async close(closing = {}) {
      clearInterval(sync);
      breakers.stop();
      await affinity.promptCache.stop();
      await logRetention?.stop();
      await topUpExpiry?.stop();
      await subscriptionPeriods.stop();
      await sessionPrune?.stop();
      await ldapRevalidation?.stop();
      await taskPoller.stop();
      stopChannelTests();
      await channels.tester.stop();
      // The writer flushes every settled call before the database closes.
      await relay.close(closing.deadline);
      await stopObservability();
      await bus.close();
      redis?.disconnect();
      if (!opts.db) await db.close();
      if (logDb !== db && !opts.logDb) await logDb.close();
    },
  };
}

import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { PlanChanges, TokenChanges } from './core/change-events.js';
import type { WalletHolds } from './core/subscriptions/wallet-holds.js';
import type { ChannelProbe } from './core/channel-probe.js';
import type { McpToolsProbe } from './core/mcp-tools.js';
import type { ProviderCatalog } from './core/providers.js';
import type { Db } from './db/connect.js';
import type { ClusterBus } from './lib/cluster-bus.js';
import type { SecretBox } from './lib/secret-box.js';
import type { RateLimiter, WindowCounters } from './lib/window-counters.js';
import type { ChannelBreakers } from './core/routing/breakers.js';
import type { ChannelCache } from './core/routing/channel-cache.js';
import type { ChannelAffinity } from './core/routing/affinity.js';
import type { ChannelsService } from './modules/channels/service.js';
import type { AccountLogs } from './accounting/account-log.js';
import type { SessionSealer } from './modules/auth/session.js';
import type { OptionsService } from './core/options/service.js';
import type { SetupService } from './modules/setup/service.js';
import type { UserAdminService } from './modules/users/admin.js';
import type { UsersService } from './modules/users/service.js';
import type { UsersStore } from './modules/users/store.js';

/**
 * Everything built once at start-up (see bootstrap.ts). Route handlers receive it whole: they are where the parts
 * meet. A service or store takes only what it uses (`Pick<AppContext, 'db' | 'options'>`, or its own deps
 * interface), handed over by its `<name>Of(ctx)` factory, so its constructor says what it depends on.
 */
export interface AppContext {
  config: Config;
  db: Db;
  /** Where the logs table is read and written: its own database with LOG_SQL_DSN, else `db` itself. */
  logDb: Db;
  /** Account-event logs (top-up, check-in, invites) with the balance change they record. */
  accountLogs: AccountLogs;
  log: Logger;
  options: OptionsService;
  sessions: SessionSealer;
  /** Seals secrets stored in the database with CRYPTO_SECRET (plaintext passes through when unset). */
  secretBox: SecretBox;
  /** Fixed-window counters (memory, or Redis in a cluster) behind every rate limit. */
  counters: WindowCounters;
  rateLimiter: RateLimiter;
  /** Present when REDIS_CONN_STRING is set. */
  redis: Redis | undefined;
  usersStore: UsersStore;
  users: UsersService;
  userAdmin: UserAdminService;
  setup: SetupService;
  /** Cache invalidation between nodes (Redis pub/sub, or local only). */
  bus: ClusterBus;
  /** Channels and abilities in memory for routing. */
  channelCache: ChannelCache;
  /** Circuit breakers of channels and keys (selection skips open ones); shared through Redis in a cluster. */
  breakers: ChannelBreakers;
  /** Sessions pinned to the channel and key that served them (prompt caches), and each channel's cache hit ratio. */
  affinity: ChannelAffinity;
  /** Channel management rules; also reportUpstreamError/enableChannel for the relay. */
  channels: ChannelsService;
  /** Calls a channel's upstream once (the relay's, for channel tests). */
  channelProbe: ChannelProbe;
  /** Lists a registered MCP server's tools for the console (the relay's MCP client). */
  mcpTools: McpToolsProbe;
  /** Told of every token change; the relay drops the token from its caches, here and on other nodes. */
  tokenChanges: TokenChanges;
  /** Told when a subscription's quota changed outside the relay (a reset); the relay re-reads its balance. */
  planChanges: PlanChanges;
  /** Holds on live wallet balances for spends outside the relay (bound by the relay at start-up). */
  walletHolds: WalletHolds;
  /** The providers as channel management reaches them (key checks, model lists, balances). */
  providers: ProviderCatalog;
  startedAt: number;
}

import type { AppContext } from '../../context.js';
import type { QuotaWarnings } from '../../modules/notifications/quota-warnings.js';
import type { TokenAuthCache } from '../entry/auth-cache.js';
import type { RelaySettingsCache } from './settings.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { Ledger } from '../../accounting/ledger.js';
import type { DurableWriter } from '../../accounting/writer.js';
import type { ResponseCache } from '../cache/response-cache.js';

/** What the relay hot path uses, built once (see relay/pipeline/bootstrap.ts). */
export interface RelayServices {
  tokens: TokenAuthCache;
  ledger: Ledger;
  writer: DurableWriter;
  /** The upstream connection pools; `upstream.for(channel)` dispatches a channel's calls. */
  upstream: UpstreamPools;
  /** The options a relay call reads, parsed once per change. */
  settings: RelaySettingsCache;
  /** Low-quota warnings, checked after each committed batch (never on the hot path). */
  quotaWarnings: QuotaWarnings;
  /** The response cache (relay/cache): answers given again to the same request within its scope. */
  responseCache: ResponseCache;
  /** A token was created, changed or deleted: drop it from caches here and on other nodes. */
  tokenChanged(key: string, id: number): void;
}

/** Hook for channel health (auto-disable); the channels module provides it. */
export interface UpstreamErrorReporter {
  reportUpstreamError(
    channel: import('../../core/routing/channel-cache.js').CachedChannel,
    keyIndex: number,
    httpStatus: number,
    message: string,
  ): Promise<void>;
}

export type RelayContext = AppContext & { relay: RelayServices; channels?: UpstreamErrorReporter };

/** What cancels an upstream call when the client goes away: an emitter of 'abort' (cheaper than an AbortController per call). */
export type CancelSignal = import('node:events').EventEmitter;

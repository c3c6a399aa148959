import type { ProviderCatalog } from '../../core/providers.js';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { eachLimited } from '../../lib/each-limited.js';
import { toCachedChannel } from '../../core/routing/channel-cache.js';
import type { ChannelRow } from '../../core/routing/channel-row.js';
import { perContext } from '../../per-context.js';
import type { ChannelsService } from './service.js';

/** The first usable key of a channel (the first key when none is usable). */
export function firstKey(row: ChannelRow): string {
  const ch = toCachedChannel(row);
  const i = ch.keyEnabled.findIndex(Boolean);
  const key = ch.keys[i >= 0 ? i : 0] ?? '';
  if (!key) throw coded(ErrorCode.ChannelNoKey, 'the channel has no key');
  return key;
}

const CONCURRENCY = 4;

/** Upstream balance queries, stored in channels.balance with the time of the query. */
export class ChannelBalances {
  constructor(
    private readonly channels: ChannelsService,
    private readonly providers: ProviderCatalog,
  ) {}

  async updateOne(id: number): Promise<{ balance: number; balance_updated_time: number }> {
    const row = await this.channels.get(id);
    const balance = await this.providers.queryBalance({ type: row.type, baseUrl: row.base_url, key: firstKey(row) });
    await this.channels.recordBalance(id, balance);
    const after = await this.channels.get(id);
    return { balance, balance_updated_time: Number(after.balance_updated_time) };
  }

  /** Every enabled channel of a type with a balance query, four at a time. */
  async updateAll(): Promise<{ updated: number; failed: number }> {
    const rows = (await this.channels.store.all()).filter((r) => r.status === 1 && this.providers.hasBalance(r.type));
    let updated = 0;
    let failed = 0;
    await eachLimited(rows, CONCURRENCY, async (row) => {
      try {
        await this.channels.recordBalance(
          row.id,
          await this.providers.queryBalance({ type: row.type, baseUrl: row.base_url, key: firstKey(row) }),
        );
        updated++;
      } catch {
        failed++;
      }
    });
    return { updated, failed };
  }
}

export const balancesOf = perContext((ctx) => new ChannelBalances(ctx.channels, ctx.providers));

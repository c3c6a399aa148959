import type { Logger } from 'pino';
import { nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../../core/options/service.js';
import { rebuildAbilities } from '../../core/routing/abilities.js';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { channelKeys, parseJsonObject, type ChannelRow, type MultiKeyInfo } from '../../core/routing/channel-row.js';
import type { ChannelPatch, ChannelsStore } from './store.js';

/** A 403 whose message speaks of the account or permissions means the key is unusable (not a content refusal). */
const ACCOUNT_403 =
  /account|permission|organi[sz]ation|suspend|banned|deactivated|disabled|denied|not allowed|unauthori[sz]ed/i;

/** Whether an upstream failure should disable the key or channel: 401, 403 about the account, or a keyword line. */
export function shouldAutoDisable(httpStatus: number, message: string, keywords: string): boolean {
  if (httpStatus === 401) return true;
  if (httpStatus === 403 && ACCOUNT_403.test(message)) return true;
  const text = message.toLowerCase();
  return keywords
    .split('\n')
    .map((k) => k.trim().toLowerCase())
    .some((k) => k !== '' && text.includes(k));
}

/** Removes the channel's keys from a message that may echo them, and keeps it short. */
export function redactKeys(message: string, keys: string[]): string {
  let out = message;
  for (const k of keys) if (k.length >= 6) out = out.split(k).join('***');
  return out.length > 500 ? `${out.slice(0, 500)}…` : out;
}

const infoOf = (row: Pick<ChannelRow, 'channel_info'>) => parseJsonObject<Partial<MultiKeyInfo>>(row.channel_info, {});

/** Longest test failure message kept in other_info (the list shows it on hover). */
const TEST_ERROR_MAX = 300;

/**
 * The fields a test writes: its response time and time, and in other_info the failure (`test_error`, cleared by a
 * passing test), so the list shows a channel whose last test failed as failing rather than by its speed.
 */
export function testPatch(row: Pick<ChannelRow, 'other_info'>, responseMs: number, error?: string): ChannelPatch {
  const other = parseJsonObject<Record<string, unknown>>(row.other_info, {});
  if (error === undefined) delete other.test_error;
  else other.test_error = error.length > TEST_ERROR_MAX ? `${error.slice(0, TEST_ERROR_MAX)}…` : error || 'failed';
  return {
    response_time: Math.round(responseMs),
    test_time: nowSeconds(),
    other_info: Object.keys(other).length ? JSON.stringify(other) : '',
  };
}

/** The fields that move a channel to `status` (1, 2 or 3 with a reason), keeping other_info's other entries. */
export function statusPatch(row: ChannelRow, status: number, reason = ''): ChannelPatch {
  const other = parseJsonObject<Record<string, unknown>>(row.other_info, {});
  const patch: ChannelPatch = { status };
  if (status === 3) {
    patch.other_info = JSON.stringify({ ...other, status_reason: reason, status_time: nowSeconds() });
  } else if (status === 1) {
    delete other.status_reason;
    delete other.status_time;
    patch.other_info = Object.keys(other).length ? JSON.stringify(other) : '';
    const info = infoOf(row);
    if (info.is_multi_key) {
      // A channel enabled with no usable key would route nowhere: its automatically disabled keys come back.
      const keys = channelKeys(row);
      const list = { ...(info.multi_key_status_list ?? {}) };
      if (!keys.some((_, i) => (list[String(i)] ?? 1) === 1)) {
        const reasons = { ...(info.multi_key_disabled_reason ?? {}) };
        const times = { ...(info.multi_key_disabled_time ?? {}) };
        for (const [i, s] of Object.entries(list)) {
          if (s === 3) {
            delete list[i];
            delete reasons[i];
            delete times[i];
          }
        }
        patch.channel_info = JSON.stringify({
          ...info,
          multi_key_status_list: list,
          multi_key_disabled_reason: reasons,
          multi_key_disabled_time: times,
        });
      }
    }
  }
  return patch;
}

/**
 * Automatic status changes: disabling keys or channels on upstream errors and test failures, enabling
 * channels that pass a test. A channel an administrator disabled (status 2) is never touched here.
 */
export class ChannelStatusRules {
  constructor(
    private readonly store: ChannelsStore,
    private readonly options: OptionsService,
    private readonly changed: () => Promise<void>,
    private readonly log: Logger,
  ) {}

  /** Writes a status patch and the channel's abilities in one transaction. */
  private async write(
    trx: Parameters<ChannelsStore['update']>[0],
    row: ChannelRow,
    patch: ChannelPatch,
  ): Promise<void> {
    await this.store.update(trx, row.id, patch);
    await rebuildAbilities(trx, [{ ...row, ...patch }]);
  }

  async reportUpstreamError(
    channel: CachedChannel,
    keyIndex: number,
    httpStatus: number,
    message: string,
  ): Promise<void> {
    if (!this.options.bool('AutomaticDisableChannelEnabled') || !channel.autoBan) return;
    if (!shouldAutoDisable(httpStatus, message, this.options.get('AutomaticDisableKeywords'))) return;
    const reason = redactKeys(`status ${httpStatus}: ${message}`, channel.keys);
    const changed = await this.store.transaction(async (trx) => {
      const row = await this.store.findForUpdate(trx, channel.id);
      if (!row || row.status !== 1) return false;
      const info = infoOf(row);
      if (!info.is_multi_key) {
        await this.write(trx, row, statusPatch(row, 3, reason));
        return true;
      }
      const keys = channelKeys(row);
      if (keyIndex < 0 || keyIndex >= keys.length) return false;
      const i = String(keyIndex);
      const list = { ...(info.multi_key_status_list ?? {}) };
      if ((list[i] ?? 1) !== 1) return false;
      list[i] = 3;
      const next: Partial<MultiKeyInfo> = {
        ...info,
        multi_key_status_list: list,
        multi_key_disabled_reason: { ...(info.multi_key_disabled_reason ?? {}), [i]: reason },
        multi_key_disabled_time: { ...(info.multi_key_disabled_time ?? {}), [i]: nowSeconds() },
      };
      const patch: ChannelPatch = { channel_info: JSON.stringify(next) };
      if (!keys.some((_, k) => (list[String(k)] ?? 1) === 1)) {
        Object.assign(patch, statusPatch(row, 3, `all keys are disabled; last: ${reason}`), {
          channel_info: patch.channel_info,
        });
      }
      await this.write(trx, row, patch);
      return true;
    });
    if (!changed) return;
    this.log.warn(
      { channel_id: channel.id, key_index: channel.multiKey ? keyIndex : undefined, status: httpStatus },
      'channel disabled automatically',
    );
    await this.changed();
  }

  /** Status 1 → 3 with a reason (test failures). Returns whether it changed. */
  async autoDisable(id: number, reason: string): Promise<boolean> {
    const changed = await this.store.transaction(async (trx) => {
      const row = await this.store.findForUpdate(trx, id);
      if (!row || row.status !== 1) return false;
      await this.write(trx, row, statusPatch(row, 3, redactKeys(reason, channelKeys(row))));
      return true;
    });
    if (changed) {
      this.log.warn({ channel_id: id }, 'channel disabled automatically');
      await this.changed();
    }
    return changed;
  }

  /** Status 3 → 1 (auto-enable after a passing test); a manual disable (2) stays. Returns whether it changed. */
  async enableChannel(id: number): Promise<boolean> {
    const changed = await this.store.transaction(async (trx) => {
      const row = await this.store.findForUpdate(trx, id);
      if (!row || row.status !== 3) return false;
      await this.write(trx, row, statusPatch(row, 1));
      return true;
    });
    if (changed) {
      this.log.info({ channel_id: id }, 'channel enabled automatically');
      await this.changed();
    }
    return changed;
  }
}

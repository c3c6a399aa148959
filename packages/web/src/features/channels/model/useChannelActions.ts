import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../../lib/api';
import {
  CHANNELS_KEY,
  copyChannel,
  deleteChannel,
  editTag,
  isTagRow,
  setTagStatus,
  testChannel,
  updateBalance,
  updateChannel,
  type Channel,
  type ListRow,
  type TestResult,
} from '../api';
import { ChannelStatus } from '@tollway/shared';

/** Swallows the failures the API client already showed; anything else is a bug and is rethrown. */
export async function quietly<T>(run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiFailure) return undefined;
    throw err;
  }
}

/** Row and tag actions of the channel table, each followed by a list refresh. */
export function useChannelActions() {
  const { t } = useTranslation('channels');
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();

  return useMemo(() => {
    const refresh = () => queryClient.invalidateQueries({ queryKey: CHANNELS_KEY });

    /** Tests a channel; `quiet` leaves the result to the caller (the test-model dialog shows it inline). */
    const test = async (c: Channel, model?: string, quiet = false): Promise<TestResult | undefined> => {
      const res = await quietly(() => testChannel(c.id, model));
      if (res && !quiet) {
        if (res.success) void message.success(t('toast.testOk', { name: c.name, time: res.time.toFixed(2) }));
        else void message.error(t('toast.testFailed', { name: c.name, message: res.message }));
      }
      void refresh();
      return res;
    };

    const toggleStatus = async (c: Channel) => {
      const status = c.status === ChannelStatus.Enabled ? ChannelStatus.ManuallyDisabled : ChannelStatus.Enabled;
      const ok = await quietly(() => updateChannel({ id: c.id, status }));
      if (ok !== undefined)
        void message.success(status === ChannelStatus.Enabled ? t('toast.enabled') : t('toast.disabled'));
      await refresh();
    };

    const remove = async (c: Channel) => {
      const ok = await quietly(() => deleteChannel(c.id));
      if (ok !== undefined) void message.success(t('toast.deleted'));
      await refresh();
    };

    /** Copies a channel on the server (key, models, settings; balance and used quota start at 0), name suffixed. */
    const copy = async (c: Channel) => {
      try {
        await copyChannel(c.id, t('copySuffix'), true);
        void message.success(t('toast.copied'));
      } catch (err) {
        if (!(err instanceof ApiFailure)) throw err;
        void message.error(t('toast.copyFailed', { reason: err.message }));
      }
      await refresh();
    };

    /** Priority or weight of a channel, or (confirmed) of every channel of a tag row. Throws when not saved. */
    const setNumber = async (row: ListRow, field: 'priority' | 'weight', value: number) => {
      if (isTagRow(row)) {
        const confirmed = await modal.confirm({
          title: t(field === 'priority' ? 'tagRow.priorityTitle' : 'tagRow.weightTitle'),
          content: t('tagRow.numberConfirm', { tag: row.tag, count: row.channel_count, value }),
          okText: t('common:action.confirm'),
          cancelText: t('common:action.cancel'),
        });
        if (!confirmed) throw new Error('cancelled');
        await editTag({ tag: row.tag, [field]: value });
      } else {
        await updateChannel({ id: row.id, [field]: value });
      }
      void message.success(t('toast.updated'));
      await refresh();
    };

    const refreshBalance = async (c: Channel) => {
      const res = await quietly(() => updateBalance(c.id));
      if (res) void message.success(t('toast.balance', { name: c.name, balance: res.balance.toFixed(2) }));
      await refresh();
    };

    const setTagEnabled = async (tag: string, enabled: boolean) => {
      const n = await quietly(() => setTagStatus(tag, enabled));
      if (n !== undefined)
        void message.success(t(enabled ? 'toast.tagEnabled' : 'toast.tagDisabled', { tag, count: n }));
      await refresh();
    };

    return { refresh, test, toggleStatus, remove, copy, setNumber, refreshBalance, setTagEnabled };
  }, [message, modal, queryClient, t]);
}

export type ChannelActions = ReturnType<typeof useChannelActions>;

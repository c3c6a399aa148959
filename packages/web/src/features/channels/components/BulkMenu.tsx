import { DownOutlined } from '@ant-design/icons';
import { App, Button, Dropdown, type MenuProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { deleteChannels, deleteDisabledChannels, fixAbilities, testAllChannels, updateAllBalances } from '../api';
import { quietly } from '../model/useChannelActions';

interface Props {
  selected: number[];
  onBatchTag: () => void;
  onDone: (clearSelection?: boolean) => void;
}

type Key = 'batchDelete' | 'batchTag' | 'deleteDisabled' | 'fix' | 'testAll' | 'balances';

/** Bulk menu: batch delete, batch tag, delete disabled, fix abilities, test all, update all balances. */
export function BulkMenu({ selected, onBatchTag, onDone }: Props) {
  const { t } = useTranslation('channels');
  const { message, modal } = App.useApp();
  const [busy, setBusy] = useState(false);

  const confirmThen = async (key: Key, run: () => Promise<string | undefined>, danger = false, clear = false) => {
    const ok = await modal.confirm({
      title: t(`bulk.${key}`),
      content: t(`bulk.${key}Confirm`, { count: selected.length }),
      okText: t('common:action.confirm'),
      cancelText: t('common:action.cancel'),
      okButtonProps: { danger, 'data-testid': 'channels-bulk-confirm' } as never,
    });
    if (!ok) return;
    setBusy(true);
    try {
      const text = await run();
      if (text !== undefined) void message.success(text);
      onDone(clear && text !== undefined);
    } finally {
      setBusy(false);
    }
  };

  const onClick: MenuProps['onClick'] = ({ key }) => {
    switch (key as Key) {
      case 'batchDelete':
        if (selected.length === 0) return void message.warning(t('bulk.selectToDelete'));
        return void confirmThen(
          'batchDelete',
          async () => {
            const n = await quietly(() => deleteChannels(selected));
            return n === undefined ? undefined : t('bulk.deleted', { count: n });
          },
          true,
          true,
        );
      case 'batchTag':
        if (selected.length === 0) return void message.warning(t('bulk.selectFirst'));
        return onBatchTag();
      case 'deleteDisabled':
        return void confirmThen(
          'deleteDisabled',
          async () => {
            const n = await quietly(deleteDisabledChannels);
            return n === undefined ? undefined : t('bulk.deletedDisabled', { count: n });
          },
          true,
          true,
        );
      case 'fix':
        return void confirmThen('fix', async () => {
          const n = await quietly(fixAbilities);
          return n === undefined ? undefined : t('bulk.fixed', { count: n });
        });
      case 'testAll':
        return void confirmThen('testAll', async () => {
          const r = await quietly(testAllChannels);
          return r === undefined ? undefined : t('bulk.testStarted');
        });
      case 'balances':
        return void confirmThen('balances', async () => {
          const r = await quietly(updateAllBalances);
          return r === undefined ? undefined : t('bulk.balancesDone', { updated: r.updated, failed: r.failed });
        });
    }
  };

  const item = (key: Key, danger = false) => ({
    key,
    danger,
    label: <span data-testid={`channels-bulk-${key}`}>{t(`bulk.${key}`)}</span>,
  });
  const items: MenuProps['items'] = [
    item('batchDelete', true),
    item('batchTag'),
    { type: 'divider' },
    item('deleteDisabled', true),
    item('fix'),
    { type: 'divider' },
    item('testAll'),
    item('balances'),
  ];

  return (
    <Dropdown menu={{ items, onClick }} trigger={['click']} placement="bottomRight">
      <Button loading={busy} data-testid="channels-bulk-menu">
        {selected.length > 0 ? t('bulk.menuCount', { count: selected.length }) : t('bulk.menu')} <DownOutlined />
      </Button>
    </Dropdown>
  );
}

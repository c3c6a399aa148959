import { Button, Flex, Popconfirm, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TagRow } from '../api';
import type { ChannelActions } from '../model/useChannelActions';

interface Props {
  row: TagRow;
  actions: ChannelActions;
  onEditTag: (row: TagRow) => void;
}

/** Tag-aggregation row: enable all, disable all (confirmed) and edit the tag. */
export function TagRowActions({ row, actions, onEditTag }: Props) {
  const { t } = useTranslation('channels');
  const [busy, setBusy] = useState<'on' | 'off' | null>(null);
  const run = async (which: 'on' | 'off') => {
    setBusy(which);
    try {
      await actions.setTagEnabled(row.tag, which === 'on');
    } finally {
      setBusy(null);
    }
  };
  const id = encodeURIComponent(row.tag);
  return (
    <Flex wrap gap={2} className="tw-ch-actions">
      <Button
        size="small"
        type="link"
        loading={busy === 'on'}
        data-testid={`channel-tag-enable-${id}`}
        onClick={() => void run('on')}
      >
        {t('tagRow.enableAll')}
      </Button>
      <Popconfirm
        title={t('tagRow.disableTitle')}
        description={t('tagRow.disableConfirm', { tag: row.tag, count: row.channel_count })}
        okText={t('tagRow.disableAll')}
        cancelText={t('common:action.cancel')}
        okButtonProps={{ danger: true, 'data-testid': `channel-tag-disable-confirm-${id}` } as ButtonProps}
        onConfirm={() => run('off')}
      >
        <Button size="small" type="link" danger loading={busy === 'off'} data-testid={`channel-tag-disable-${id}`}>
          {t('tagRow.disableAll')}
        </Button>
      </Popconfirm>
      <Button size="small" type="link" data-testid={`channel-tag-edit-${id}`} onClick={() => onEditTag(row)}>
        {t('tagRow.edit')}
      </Button>
    </Flex>
  );
}

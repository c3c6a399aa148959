import { CopyOutlined, DeleteOutlined, DownOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Flex, Popconfirm, Space, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Channel } from '../api';
import type { ChannelActions } from '../model/useChannelActions';
import { ChannelStatus } from '@tollway/shared';
import { TipButton } from '../../../components/TipButton';

interface Props {
  channel: Channel;
  actions: ChannelActions;
  onEdit: (c: Channel) => void;
  onPickTestModel: (c: Channel) => void;
}

type Busy = 'test' | 'toggle' | 'copy' | 'delete' | null;

/** Test (with a model picker), enable/disable, then edit, copy and a confirmed delete as icons with tooltips (the column stays narrow). */
export function RowActions({ channel: c, actions, onEdit, onPickTestModel }: Props) {
  const { t } = useTranslation('channels');
  const [busy, setBusy] = useState<Busy>(null);
  const run = async (what: Exclude<Busy, null>, fn: () => Promise<unknown>) => {
    setBusy(what);
    try {
      await fn();
    } finally {
      setBusy(null);
    }
  };
  const enabled = c.status === ChannelStatus.Enabled;
  return (
    <Flex wrap gap={2} align="center" className="tw-ch-actions">
      <Space.Compact size="small">
        <Button
          size="small"
          loading={busy === 'test'}
          data-testid={`channel-test-${c.id}`}
          onClick={() => void run('test', () => actions.test(c))}
        >
          {t('actions.test')}
        </Button>
        <TipButton
          label={t('actions.testModel')}
          size="small"
          icon={<DownOutlined />}
          data-testid={`channel-test-pick-${c.id}`}
          onClick={() => onPickTestModel(c)}
        />
      </Space.Compact>
      <Button
        size="small"
        type="link"
        danger={enabled}
        loading={busy === 'toggle'}
        data-testid={`channel-toggle-${c.id}`}
        onClick={() => void run('toggle', () => actions.toggleStatus(c))}
      >
        {enabled ? t('actions.disable') : t('actions.enable')}
      </Button>
      <TipButton
        subtle
        label={t('actions.edit')}
        icon={<EditOutlined />}
        data-testid={`channel-edit-${c.id}`}
        onClick={() => onEdit(c)}
      />
      <Popconfirm
        title={t('actions.copyTitle')}
        description={t('actions.copyConfirm', { name: c.name })}
        okText={t('actions.copy')}
        cancelText={t('common:action.cancel')}
        okButtonProps={{ 'data-testid': `channel-copy-confirm-${c.id}` } as ButtonProps}
        onConfirm={() => run('copy', () => actions.copy(c))}
      >
        <TipButton
          subtle
          label={t('actions.copy')}
          icon={<CopyOutlined />}
          loading={busy === 'copy'}
          data-testid={`channel-copy-${c.id}`}
        />
      </Popconfirm>
      <Popconfirm
        title={t('actions.deleteTitle')}
        description={t('actions.deleteConfirm', { name: c.name })}
        okText={t('common:action.delete')}
        cancelText={t('common:action.cancel')}
        okButtonProps={{ danger: true, 'data-testid': `channel-delete-confirm-${c.id}` } as ButtonProps}
        onConfirm={() => run('delete', () => actions.remove(c))}
      >
        <TipButton
          subtle
          danger
          label={t('common:action.delete')}
          icon={<DeleteOutlined />}
          loading={busy === 'delete'}
          data-testid={`channel-delete-${c.id}`}
        />
      </Popconfirm>
    </Flex>
  );
}

import { CopyOutlined, DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Flex, Popconfirm, Switch, Tooltip, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCopy } from '../../shell/useCopy';
import { RedemptionStatus, type Redemption } from '../api';

interface Props {
  r: Redemption;
  onToggle: (r: Redemption) => Promise<void>;
  onEdit: (r: Redemption) => void;
  onDelete: (r: Redemption) => Promise<void>;
}

/**
 * Row actions: copy the code, enable/disable (not offered for a used code), edit (unused codes only, spec 3 §4)
 * and delete after a confirmation.
 */
export function RedemptionActions({ r, onToggle, onEdit, onDelete }: Props) {
  const { t } = useTranslation('redemption');
  const copy = useCopy();
  const [busy, setBusy] = useState<'toggle' | 'delete' | null>(null);
  const run = async (what: 'toggle' | 'delete', fn: () => Promise<void>) => {
    setBusy(what);
    try {
      await fn();
    } finally {
      setBusy(null);
    }
  };
  const enabled = r.status === RedemptionStatus.Unused;
  const used = r.status === RedemptionStatus.Used;

  return (
    <Flex gap={2} align="center">
      <Tooltip title={t('actions.copy')}>
        <Button size="small" icon={<CopyOutlined />} aria-label={t('actions.copy')} data-testid={`redemption-copy-${r.id}`} onClick={() => void copy(r.key, t('toast.copied'))} />
      </Tooltip>
      <Tooltip title={used ? undefined : enabled ? t('actions.disable') : t('actions.enable')}>
        <Switch
          size="small"
          checked={enabled}
          disabled={used || busy === 'delete'}
          loading={busy === 'toggle'}
          aria-label={enabled ? t('actions.disable') : t('actions.enable')}
          data-testid={`redemption-toggle-${r.id}`}
          onChange={() => void run('toggle', () => onToggle(r))}
          style={{ marginInline: 6 }}
        />
      </Tooltip>
      <Tooltip title={t('actions.edit')}>
        <Button
          size="small"
          type="text"
          icon={<EditOutlined />}
          disabled={!enabled}
          aria-label={t('actions.edit')}
          data-testid={`redemption-edit-${r.id}`}
          onClick={() => onEdit(r)}
        />
      </Tooltip>
      <Popconfirm
        title={t('actions.deleteTitle')}
        description={t('actions.deleteConfirm', { name: r.name })}
        okText={t('actions.delete')}
        okButtonProps={{ danger: true, 'data-testid': `redemption-delete-confirm-${r.id}` } as ButtonProps}
        cancelText={t('common:action.cancel')}
        onConfirm={() => run('delete', () => onDelete(r))}
      >
        <Tooltip title={t('actions.delete')}>
          <Button
            size="small"
            type="text"
            danger
            icon={<DeleteOutlined />}
            aria-label={t('actions.delete')}
            loading={busy === 'delete'}
            disabled={busy === 'toggle'}
            data-testid={`redemption-delete-${r.id}`}
          />
        </Tooltip>
      </Popconfirm>
    </Flex>
  );
}

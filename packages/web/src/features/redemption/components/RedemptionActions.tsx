import { CopyOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Flex, Switch, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { DeleteButton } from '../../../components/DeleteButton';
import { useBusy } from '../../../lib/useBusy';
import { useCopy } from '../../../components/useCopy';
import { RedemptionStatus, type Redemption } from '../api';

interface Props {
  r: Redemption;
  onToggle: (r: Redemption) => Promise<void>;
  onEdit: (r: Redemption) => void;
  onDelete: (r: Redemption) => Promise<void>;
}

/**
 * Row actions: copy the code, enable/disable (not offered for a used code), edit (unused codes only)
 * and delete after a confirmation.
 */
export function RedemptionActions({ r, onToggle, onEdit, onDelete }: Props) {
  const { t } = useTranslation('redemption');
  const copy = useCopy();
  const [busy, run] = useBusy<'toggle' | 'delete'>();
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
      <DeleteButton
        label={t('actions.delete')}
        confirmTitle={t('actions.deleteTitle')}
        confirmText={t('actions.deleteConfirm', { name: r.name })}
        loading={busy === 'delete'}
        disabled={busy === 'toggle'}
        onConfirm={() => run('delete', () => onDelete(r))}
        testid={`redemption-delete-${r.id}`}
        confirmTestid={`redemption-delete-confirm-${r.id}`}
      />
    </Flex>
  );
}

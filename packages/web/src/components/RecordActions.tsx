import { EditOutlined } from '@ant-design/icons';
import { Flex, Switch, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusy } from '../lib/useBusy';
import { DeleteButton } from './DeleteButton';
import { TipButton } from './TipButton';

interface Props {
  /** The feature's i18n namespace: actions.enable/disable/edit/delete/deleteTitle and deleteConfirm ({name}). */
  ns: string;
  /** Test ids are `${testPrefix}-toggle-${id}`, `-edit-`, `-delete-` and `-delete-confirm-`. */
  testPrefix: string;
  id: number;
  name: string;
  enabled: boolean;
  /** The switch cannot change (no tooltip then). */
  locked?: boolean;
  editable?: boolean;
  /** Why the record cannot be edited (the disabled edit button's tooltip). */
  editRefusal?: string;
  /** Why the switch cannot change (its tooltip when locked). */
  lockedReason?: string;
  onToggle: () => Promise<void>;
  onEdit: () => void;
  onDelete: () => Promise<void>;
  /** Actions before the switch, e.g. copy buttons. */
  children?: ReactNode;
}

/** A record row's actions: enable/disable switch, edit, and delete after a confirmation; one runs at a time. */
export function RecordActions({
  ns,
  testPrefix,
  id,
  name,
  enabled,
  locked = false,
  editable = true,
  editRefusal,
  lockedReason,
  onToggle,
  onEdit,
  onDelete,
  children,
}: Props) {
  const { t } = useTranslation(ns);
  const [busy, run] = useBusy<'toggle' | 'delete'>();
  const toggleLabel = enabled ? t('actions.disable') : t('actions.enable');
  return (
    <Flex gap={2} align="center">
      {children}
      <Tooltip title={locked ? lockedReason : toggleLabel}>
        <Switch
          size="small"
          checked={enabled}
          disabled={locked || busy === 'delete'}
          loading={busy === 'toggle'}
          aria-label={toggleLabel}
          data-testid={`${testPrefix}-toggle-${id}`}
          onChange={() => void run('toggle', onToggle)}
          style={{ marginInline: 6 }}
        />
      </Tooltip>
      <TipButton
        subtle
        label={!editable && editRefusal ? editRefusal : t('actions.edit')}
        icon={<EditOutlined />}
        disabled={!editable}
        data-testid={`${testPrefix}-edit-${id}`}
        onClick={() => onEdit()}
      />
      <DeleteButton
        label={t('actions.delete')}
        confirmTitle={t('actions.deleteTitle')}
        confirmText={t('actions.deleteConfirm', { name })}
        loading={busy === 'delete'}
        disabled={busy === 'toggle'}
        onConfirm={() => run('delete', onDelete)}
        testid={`${testPrefix}-delete-${id}`}
        confirmTestid={`${testPrefix}-delete-confirm-${id}`}
      />
    </Flex>
  );
}

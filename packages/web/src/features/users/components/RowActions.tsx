import { Button, Flex, Popconfirm, type ButtonProps } from 'antd';
import type { UserManageAction } from '@tollway/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AdminUser } from '../api';
import { ResetTwoFactorButton } from '../../../components/twofa/ResetTwoFactorButton';
import { isDeleted } from './UserTags';

interface Props {
  user: AdminUser;
  onManage: (user: AdminUser, action: UserManageAction) => Promise<void>;
  onEdit: (user: AdminUser) => void;
  onAddQuota: (user: AdminUser) => void;
}

/**
 * Row actions of the user table: promote, demote, enable or disable, delete (confirmed), edit and
 * add quota. Deleted users have none; at status 3 enable is disabled. Tier rules are enforced by the server.
 */
export function RowActions({ user, onManage, onEdit, onAddQuota }: Props) {
  const { t } = useTranslation('users');
  const [busy, setBusy] = useState<UserManageAction | null>(null);
  if (isDeleted(user)) return <span aria-label={t('actions.none')}>—</span>;

  const run = async (action: UserManageAction) => {
    setBusy(action);
    try {
      await onManage(user, action);
    } finally {
      setBusy(null);
    }
  };
  const manageButton = (action: UserManageAction, extra: { danger?: boolean; disabled?: boolean } = {}) => (
    <Button
      size="small"
      type="link"
      data-testid={`user-action-${action}-${user.id}`}
      loading={busy === action}
      disabled={(busy !== null && busy !== action) || extra.disabled}
      danger={extra.danger}
      onClick={action === 'delete' ? undefined : () => void run(action)}
    >
      {t(`actions.${action}`)}
    </Button>
  );

  return (
    <Flex wrap gap={2} style={{ maxWidth: 220 }}>
      {manageButton('promote')}
      {manageButton('demote')}
      {user.status === 1 ? manageButton('disable', { danger: true }) : manageButton('enable', { disabled: user.status === 3 })}
      <Button size="small" type="link" data-testid={`user-action-edit-${user.id}`} onClick={() => onEdit(user)}>
        {t('actions.edit')}
      </Button>
      <Button size="small" type="link" data-testid={`user-action-quota-${user.id}`} onClick={() => onAddQuota(user)}>
        {t('actions.addQuota')}
      </Button>
      <ResetTwoFactorButton user={user} />
      <Popconfirm
        title={t('actions.deleteTitle')}
        description={t('actions.deleteConfirm', { name: user.username })}
        okText={t('actions.delete')}
        okButtonProps={{ danger: true, 'data-testid': `user-action-delete-confirm-${user.id}` } as ButtonProps}
        cancelText={t('common:action.cancel')}
        onConfirm={() => run('delete')}
      >
        {manageButton('delete', { danger: true })}
      </Popconfirm>
    </Flex>
  );
}

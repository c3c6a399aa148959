import { Button, Flex, Popconfirm, Tooltip, type ButtonProps } from 'antd';
import { UserStatus, type UserManageAction } from '@tollway/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AdminUser } from '../api';
import { ResetTwoFactorButton } from '../../../components/twofa/ResetTwoFactorButton';
import { isDeleted } from './UserTags';
import { manageRefusal } from './refusal';
import { useStoredUser } from '../../../lib/session';

interface Props {
  user: AdminUser;
  onManage: (user: AdminUser, action: UserManageAction) => Promise<void>;
  onEdit: (user: AdminUser) => void;
  onAddQuota: (user: AdminUser) => void;
}

/**
 * Row actions of the user table: promote, demote, enable or disable, delete (confirmed), edit and
 * add quota. Deleted users have none; at status 3 enable is disabled. What the server refuses (its tier rules) is disabled with the reason.
 */
export function RowActions({ user, onManage, onEdit, onAddQuota }: Props) {
  const { t } = useTranslation('users');
  const [busy, setBusy] = useState<UserManageAction | null>(null);
  const actor = useStoredUser();
  if (isDeleted(user)) return <span aria-label={t('actions.none')}>—</span>;

  const run = async (action: UserManageAction) => {
    setBusy(action);
    try {
      await onManage(user, action);
    } finally {
      setBusy(null);
    }
  };
  // An action the server would refuse is disabled, its tooltip saying why.
  const manageButton = (action: UserManageAction, extra: { danger?: boolean; disabled?: boolean } = {}) => {
    const refusal = manageRefusal(actor, user, action);
    const button = (
      <Button
        size="small"
        type="link"
        data-testid={`user-action-${action}-${user.id}`}
        loading={busy === action}
        disabled={(busy !== null && busy !== action) || extra.disabled || refusal !== null}
        danger={extra.danger}
        onClick={action === 'delete' ? undefined : () => void run(action)}
      >
        {t(`actions.${action}`)}
      </Button>
    );
    return refusal ? (
      <Tooltip title={t(`refused.${refusal}`)}>
        <span data-testid={`user-action-${action}-${user.id}-why`}>{button}</span>
      </Tooltip>
    ) : (
      button
    );
  };

  return (
    <Flex wrap gap={2} style={{ maxWidth: 220 }}>
      {manageButton('promote')}
      {manageButton('demote')}
      {user.status === UserStatus.Enabled
        ? manageButton('disable', { danger: true })
        : manageButton('enable', { disabled: user.status === 3 })}
      <Button size="small" type="link" data-testid={`user-action-edit-${user.id}`} onClick={() => onEdit(user)}>
        {t('actions.edit')}
      </Button>
      <Button size="small" type="link" data-testid={`user-action-quota-${user.id}`} onClick={() => onAddQuota(user)}>
        {t('actions.addQuota')}
      </Button>
      <ResetTwoFactorButton user={user} />
      {manageRefusal(actor, user, 'delete') ? (
        manageButton('delete', { danger: true })
      ) : (
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
      )}
    </Flex>
  );
}

import { Button, Flex, Popconfirm, Tooltip, type ButtonProps } from 'antd';
import { UserStatus, type UserManageAction } from '@tollway/shared';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { AdminUser } from '../api';
import { ResetTwoFactorButton } from '../../../components/twofa/ResetTwoFactorButton';
import { ResetPasskeyButton } from '../../../components/passkey/ResetPasskeyButton';
import { isDeleted } from './UserTags';
import { editRefusal, manageRefusal, twoFactorResetRefusal } from './refusal';
import { useStoredUser } from '../../../lib/session';

interface Props {
  user: AdminUser;
  onManage: (user: AdminUser, action: UserManageAction) => Promise<void>;
  onEdit: (user: AdminUser) => void;
  onAddQuota: (user: AdminUser) => void;
  onSubscriptions: (user: AdminUser) => void;
}

/**
 * Row actions of the user table: promote, demote, enable or disable, delete (confirmed), edit and
 * add quota, subscriptions. Deleted users have none; at status 3 enable is disabled. What the server refuses (its tier rules) is disabled with the reason.
 */
export function RowActions({ user, onManage, onEdit, onAddQuota, onSubscriptions }: Props) {
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
  // A disabled button keeps its reason in a tooltip (on a wrapper: a disabled button fires no hover).
  const explained = (button: ReactNode, refusal: string | null, name: string) =>
    refusal ? (
      <Tooltip title={t(`refused.${refusal}`)}>
        <span data-testid={`user-action-${name}-${user.id}-why`}>{button}</span>
      </Tooltip>
    ) : (
      button
    );
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
    return explained(button, refusal, action);
  };

  // Edit and add quota: disabled on a user the actor may not change (same or higher level), saying why.
  const editBlocked = editRefusal(actor, user);
  const twoFactorBlocked = twoFactorResetRefusal(actor, user);
  // A passkey is reset by the same rule (users below the caller; one's own in personal settings).
  const passkeyBlocked = twoFactorBlocked === 'twoFactorSelf' ? 'self' : twoFactorBlocked;
  const editButton = (kind: 'edit' | 'quota', onClick: () => void) => {
    const button = (
      <Button
        size="small"
        type="link"
        data-testid={`user-action-${kind}-${user.id}`}
        disabled={editBlocked !== null}
        onClick={onClick}
      >
        {t(kind === 'edit' ? 'actions.edit' : 'actions.addQuota')}
      </Button>
    );
    return explained(button, editBlocked, kind);
  };

  return (
    <Flex wrap gap={2} style={{ maxWidth: 220 }}>
      {manageButton('promote')}
      {manageButton('demote')}
      {user.status === UserStatus.Enabled
        ? manageButton('disable', { danger: true })
        : manageButton('enable', { disabled: user.status === 3 })}
      {editButton('edit', () => onEdit(user))}
      {editButton('quota', () => onAddQuota(user))}
      <Button
        size="small"
        type="link"
        data-testid={`user-action-subscriptions-${user.id}`}
        onClick={() => onSubscriptions(user)}
      >
        {t('subscriptions:user.action')}
      </Button>
      {explained(
        <ResetTwoFactorButton user={user} disabled={twoFactorBlocked !== null} />,
        twoFactorBlocked,
        'reset-2fa',
      )}
      {explained(
        <ResetPasskeyButton user={user} disabled={passkeyBlocked !== null} />,
        passkeyBlocked,
        'reset-passkey',
      )}
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

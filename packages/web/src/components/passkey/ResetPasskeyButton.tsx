import { App, Button, Popconfirm, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete } from '../../lib/api';

/** User management: removes a user's passkey (the server applies the tier rules and says when there is none). */
export function ResetPasskeyButton({
  user,
  disabled = false,
}: {
  user: { id: number; username: string };
  disabled?: boolean;
}) {
  const { t } = useTranslation(['passkey', 'common']);
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const reset = async () => {
    setBusy(true);
    try {
      await apiDelete(`/api/user/${user.id}/reset_passkey`);
      void message.success(t('admin.resetDone'));
    } catch {
      /* the API client showed the server's message */
    } finally {
      setBusy(false);
    }
  };
  return (
    <Popconfirm
      title={t('admin.resetTitle')}
      description={t('admin.resetConfirm', { name: user.username })}
      okText={t('admin.reset')}
      okButtonProps={{ danger: true, 'data-testid': `user-action-reset-passkey-confirm-${user.id}` } as ButtonProps}
      cancelText={t('common:action.cancel')}
      onConfirm={reset}
      disabled={disabled}
    >
      <Button
        size="small"
        type="link"
        loading={busy}
        disabled={disabled}
        data-testid={`user-action-reset-passkey-${user.id}`}
      >
        {t('admin.reset')}
      </Button>
    </Popconfirm>
  );
}

import { App, Button, Popconfirm, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete } from '../../lib/api';

/**
 * User management: turns off a user's two-factor sign-in (the server applies the tier rules; `disabled` where it
 * would refuse, the caller saying why).
 */
export function ResetTwoFactorButton({
  user,
  disabled = false,
}: {
  user: { id: number; username: string };
  disabled?: boolean;
}) {
  const { t } = useTranslation(['twofa', 'common']);
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const reset = async () => {
    setBusy(true);
    try {
      await apiDelete(`/api/user/${user.id}/2fa`);
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
      okButtonProps={{ danger: true, 'data-testid': `user-action-reset-2fa-confirm-${user.id}` } as ButtonProps}
      cancelText={t('common:action.cancel')}
      onConfirm={reset}
      disabled={disabled}
    >
      <Button
        size="small"
        type="link"
        loading={busy}
        disabled={disabled}
        data-testid={`user-action-reset-2fa-${user.id}`}
      >
        {t('admin.reset')}
      </Button>
    </Popconfirm>
  );
}

import { App, Button, Popconfirm, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete } from '../lib/api';

export interface ResetCredentialProps {
  user: { id: number; username: string };
  /** Where the server would refuse (the caller says why). */
  disabled?: boolean;
}

/**
 * User management: an administrator's reset of one of a user's credentials (two-factor sign-in, passkey), asked
 * for with a confirmation; the server applies the tier rules. `namespace` holds admin.reset, admin.resetTitle,
 * admin.resetConfirm and admin.resetDone; test ids are `user-action-reset-<testid>(-confirm)-<user id>`.
 */
export function ResetCredentialButton({
  user,
  disabled = false,
  url,
  namespace,
  testid,
}: ResetCredentialProps & { url: string; namespace: string; testid: string }) {
  const { t } = useTranslation([namespace, 'common']);
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const reset = async () => {
    setBusy(true);
    try {
      await apiDelete(url);
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
      okButtonProps={{ danger: true, 'data-testid': `user-action-reset-${testid}-confirm-${user.id}` } as ButtonProps}
      cancelText={t('common:action.cancel')}
      onConfirm={reset}
      disabled={disabled}
    >
      <Button
        size="small"
        type="link"
        loading={busy}
        disabled={disabled}
        data-testid={`user-action-reset-${testid}-${user.id}`}
      >
        {t('admin.reset')}
      </Button>
    </Popconfirm>
  );
}

import { App } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { StoredUser } from '../../lib/storage';
import { safeReturnTo, signIn } from '../../lib/session';
import { isChallenge } from '../../components/twofa/api';

/** What the first sign-in step hands over (navigation state; the pending cookie covers a reload). */
export interface LoginStepState {
  flowToken?: string;
  defaultCredentials?: boolean;
}

/**
 * Stores the logged-in user and goes to returnTo or /app/tokens. With the default
 * initial administrator credentials it first warns and offers to change the password. A sign-in that asks for
 * the second factor goes to /login/2fa first.
 */
export function useCompleteLogin() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const { message, modal } = App.useApp();
  return useCallback(
    (user: unknown, returnTo: string | null, defaultCredentials = false) => {
      if (isChallenge(user)) {
        const state: LoginStepState = { flowToken: user.flow_token, defaultCredentials };
        navigate(`/login/2fa${returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : ''}`, { state, replace: true });
        return;
      }
      signIn(user as StoredUser);
      void message.success(t('login.success'));
      const target = safeReturnTo(returnTo);
      if (!defaultCredentials) {
        navigate(target, { replace: true });
        return;
      }
      modal.confirm({
        title: t('login.defaultTitle'),
        content: t('login.defaultContent'),
        okText: t('login.changeNow'),
        cancelText: t('login.later'),
        className: 'tw-default-password-modal',
        okButtonProps: { 'data-testid': 'default-password-change' },
        cancelButtonProps: { 'data-testid': 'default-password-later' },
        onOk: () => navigate('/app/me', { replace: true }),
        onCancel: () => navigate(target, { replace: true }),
      });
    },
    [message, modal, navigate, t],
  );
}

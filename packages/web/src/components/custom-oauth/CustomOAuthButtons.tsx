import { LoginOutlined } from '@ant-design/icons';
import { App, Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure, apiPost } from '../../lib/api';
import { rememberReturnTo } from '../../lib/oauth';
import type { Status } from '../../lib/status';
import { customProvidersOf, startCustomSignIn } from './api';

/**
 * One button per enabled root-defined provider the browser can use on the login page: an OAuth/OIDC provider goes
 * through its authorization page; a trusted-header provider signs in at once with the headers the identity proxy in
 * front of this site adds to the call.
 */
export function CustomOAuthButtons({
  status,
  returnTo,
  onLoggedIn,
}: {
  status: Status;
  returnTo: string | null;
  onLoggedIn: (user: unknown) => void;
}) {
  const { t } = useTranslation('customOAuth');
  const { message } = App.useApp();
  const [pending, setPending] = useState('');
  const start = async (slug: string, kind: string) => {
    setPending(slug);
    try {
      if (kind === 'trusted_header') {
        onLoggedIn((await apiPost<unknown>(`/api/auth/external/${encodeURIComponent(slug)}/header/login`)).data);
        setPending('');
        return;
      }
      rememberReturnTo(returnTo);
      await startCustomSignIn(slug);
    } catch (err) {
      // A refusal was already shown by the API layer.
      if (!(err instanceof ApiFailure)) void message.error(t('login.startFailed'));
      setPending('');
    }
  };
  return customProvidersOf(status)
    .filter((p) => p.browser_login_supported && (p.kind === 'oauth_code' || p.kind === 'trusted_header'))
    .map((p) => (
      <Button
        key={p.slug}
        block
        icon={<LoginOutlined />}
        loading={pending === p.slug}
        data-testid={`oauth-custom-${p.slug}`}
        onClick={() => void start(p.slug, p.kind)}
      >
        {t('login.button', { name: p.name })}
      </Button>
    ));
}

import { LoginOutlined } from '@ant-design/icons';
import { App, Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rememberReturnTo } from '../../lib/oauth';
import type { Status } from '../../lib/status';
import { browserProviders, startCustomSignIn } from './api';

/** One button per enabled root-defined OAuth/OIDC provider on the login page. */
export function CustomOAuthButtons({ status, returnTo }: { status: Status; returnTo: string | null }) {
  const { t } = useTranslation('customOAuth');
  const { message } = App.useApp();
  const [pending, setPending] = useState('');
  const start = async (slug: string) => {
    setPending(slug);
    try {
      rememberReturnTo(returnTo);
      await startCustomSignIn(slug);
    } catch {
      void message.error(t('login.startFailed'));
      setPending('');
    }
  };
  return browserProviders(status).map((p) => (
    <Button
      key={p.slug}
      block
      icon={<LoginOutlined />}
      loading={pending === p.slug}
      data-testid={`oauth-custom-${p.slug}`}
      onClick={() => void start(p.slug)}
    >
      {t('login.button', { name: p.name })}
    </Button>
  ));
}

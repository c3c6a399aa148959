import { App, Button, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ErrorScreen } from '../../components/ErrorScreen';
import { api } from '../../lib/api';
import { takeReturnTo } from '../../lib/oauth';
import { useCompleteLogin } from './useCompleteLogin';

/** /oauth/{provider}: exchanges code and state (GET /api/oauth/{type}); a bind result goes to the personal settings (/app/me). */
export default function OAuthCallbackPage() {
  const { t } = useTranslation('auth');
  const { provider = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const complete = useCompleteLogin();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const code = params.get('code');
    const state = params.get('state') ?? '';
    if (!code) {
      setError(t('oauth.missingCode'));
      return;
    }
    const q = new URLSearchParams({ code, state });
    api<unknown>('GET', `/api/oauth/${encodeURIComponent(provider)}?${q}`)
      .then((res) => {
        if (res.message === 'bind') {
          void message.success(t('oauth.bindSuccess'));
          // The bindings are listed on the personal settings page.
          navigate('/app/me', { replace: true });
        } else {
          complete(res.data, takeReturnTo());
        }
      })
      .catch((err: unknown) => setError(err instanceof Error ? err.message : t('oauth.failed')));
  }, [complete, message, navigate, params, provider, t]);

  if (error) {
    return (
      <ErrorScreen
        testid="oauth-callback"
        title={t('oauth.failed')}
        detail={error}
        action={
          <Link to="/login">
            <Button type="primary">{t('oauth.backToLogin')}</Button>
          </Link>
        }
      />
    );
  }
  return (
    <div className="tw-center-page" data-testid="oauth-callback">
      <Spin size="large" description={t('oauth.processing')} />
    </div>
  );
}

import { Alert, Divider, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useStatus } from '../../lib/status';
import { AuthCard } from './AuthCard';
import { hasOAuth, OAuthButtons } from './OAuthButtons';
import { rememberedInviteCode } from '../../lib/oauth';
import { RegisterForm } from './RegisterForm';
import { useCompleteLogin } from './useCompleteLogin';

/** The invite code from ?aff=, remembered under the local key aff. */
function useAffCode(): string {
  const [params] = useSearchParams();
  const fromQuery = params.get('aff')?.trim() ?? '';
  useEffect(() => {
    if (fromQuery) localStorage.setItem('aff', fromQuery);
  }, [fromQuery]);
  return fromQuery || rememberedInviteCode() || '';
}

/** /register: the sign-up form. */
export default function RegisterPage() {
  const { t } = useTranslation('auth');
  const { data: status } = useStatus();
  const navigate = useNavigate();
  const affCode = useAffCode();
  const complete = useCompleteLogin();
  const name = status?.system_name || 'Tollway';
  const closed = status?.self_use_mode_enabled
    ? t('register.selfUse')
    : status?.register_enabled === false
      ? t('register.disabled')
      : null;
  const passwordRegister = status?.password_register_enabled !== false;

  return (
    <AuthCard title={t('register.title')} subtitle={t('register.subtitle', { name })} testId="register-page">
      {closed ? (
        <Alert type="warning" showIcon title={closed} data-testid="register-closed" />
      ) : (
        <>
          {affCode && (
            <div style={{ marginBottom: 12, textAlign: 'center' }}>
              <Tag color="blue" data-testid="register-aff">
                {t('register.affCode')}: {affCode}
              </Tag>
            </div>
          )}
          {passwordRegister ? (
            <RegisterForm
              emailVerification={!!status?.email_verification}
              affCode={affCode}
              onSuccess={() => navigate('/login')}
            />
          ) : (
            <Alert type="info" showIcon title={t('register.passwordDisabled')} style={{ marginBottom: 16 }} />
          )}
          {hasOAuth(status) && status && (
            <>
              {passwordRegister && (
                <Divider plain>
                  <Typography.Text type="secondary" style={{ fontSize: 13 }}>
                    {t('login.or')}
                  </Typography.Text>
                </Divider>
              )}
              <OAuthButtons status={status} returnTo={null} onLoggedIn={(user) => complete(user, null)} />
            </>
          )}
        </>
      )}
      <div className="tw-auth-foot">
        {t('register.haveAccount')}{' '}
        <Link to="/login" data-testid="register-login-link">
          {t('register.login')}
        </Link>
      </div>
    </AuthCard>
  );
}

import { Alert, Divider, Flex, Tabs, Typography } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { hasOAuth } from '../../lib/oauth';
import { useStatus } from '../../lib/status';
import { AuthCard } from './AuthCard';
import { LoginForm } from './LoginForm';
import { LdapLoginForm } from './LdapLoginForm';
import { PasskeyLoginButton } from '../../components/passkey/PasskeyLoginButton';
import { useCompleteLogin } from './useCompleteLogin';

// Third-party sign-in (its buttons, icons and the Telegram widget) loads only when a provider is enabled.
const OAuthButtons = lazy(() => import('./OAuthButtons').then((m) => ({ default: m.OAuthButtons })));

/** /login: expired notice, password form, third-party sign-in, links to register and reset. */
export default function LoginPage() {
  const { t } = useTranslation(['auth', 'common']);
  const { data: status } = useStatus();
  const [params] = useSearchParams();
  const returnTo = params.get('returnTo');
  const complete = useCompleteLogin();
  const passwordLogin = status?.password_login_enabled !== false;
  const oauth = hasOAuth(status);
  const canRegister = !status?.self_use_mode_enabled && status?.register_enabled !== false;
  const name = status?.system_name || 'Tollway';
  // Directory sign-in, when on, is a tab beside the password form (the first one shown) or the only form.
  const ldapLogin = status?.ldap_login === true;
  const ldapForm = <LdapLoginForm onSuccess={(user) => complete(user, returnTo)} />;
  const passwordForm = <LoginForm onSuccess={(user, isDefault) => complete(user, returnTo, isDefault)} />;

  return (
    <AuthCard title={t('login.title')} subtitle={t('login.subtitle', { name })} testId="login-page">
      {params.get('expired') === 'true' && (
        <Alert
          type="warning"
          showIcon
          title={t('common:error.expired')}
          style={{ marginBottom: 16 }}
          data-testid="login-expired"
        />
      )}
      {ldapLogin && passwordLogin ? (
        <Tabs
          defaultActiveKey="ldap"
          centered
          data-testid="login-tabs"
          items={[
            { key: 'ldap', label: t('ldap.tab'), children: ldapForm },
            { key: 'password', label: t('ldap.tabPassword'), children: passwordForm },
          ]}
        />
      ) : ldapLogin ? (
        ldapForm
      ) : passwordLogin ? (
        passwordForm
      ) : (
        <Alert type="info" showIcon title={t('login.passwordDisabled')} style={{ marginBottom: 16 }} />
      )}
      {status?.passkey_login && (
        <div style={{ marginTop: 12 }}>
          {/* Its texts are fetched when it first shows (most gateways have no passkey sign-in): the button waits, not the page. */}
          <Suspense fallback={null}>
            <PasskeyLoginButton onSignedIn={(user) => complete(user, returnTo)} />
          </Suspense>
        </div>
      )}
      {oauth && status && (
        <>
          {passwordLogin && (
            <Divider plain>
              <Typography.Text type="secondary" style={{ fontSize: 13 }}>
                {t('login.or')}
              </Typography.Text>
            </Divider>
          )}
          <Suspense fallback={null}>
            <OAuthButtons status={status} returnTo={returnTo} onLoggedIn={(user) => complete(user, returnTo)} />
          </Suspense>
        </>
      )}
      <div className="tw-auth-foot">
        <Flex wrap gap="4px 20px" justify="center">
          {canRegister && (
            <span>
              {t('login.noAccount')}{' '}
              <Link to="/register" data-testid="login-register-link">
                {t('login.register')}
              </Link>
            </span>
          )}
          {passwordLogin && (
            <Link to="/reset" data-testid="login-reset-link">
              {t('login.forgot')}
            </Link>
          )}
        </Flex>
      </div>
    </AuthCard>
  );
}

import { SafetyOutlined } from '@ant-design/icons';
import { Button, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { useSubmit } from '../../lib/useSubmit';
import { AuthCard } from './AuthCard';
import { useCompleteLogin, type LoginStepState } from './useCompleteLogin';
import { completeLogin } from '../../components/twofa/api';
import { PasskeyLoginButton } from '../../components/passkey/PasskeyLoginButton';
import { useStatus } from '../../lib/status';

/** /login/2fa: the second step of a sign-in, with an authenticator code or a backup code. */
export default function LoginStepPage() {
  const { t } = useTranslation('twofa');
  const [params] = useSearchParams();
  const state = (useLocation().state ?? {}) as LoginStepState;
  const complete = useCompleteLogin();
  const [backup, setBackup] = useState(false);
  const [code, setCode] = useState('');
  const { loading, run } = useSubmit();
  const { data: status } = useStatus();

  const submit = () =>
    void run(async () => {
      const user = await completeLogin(code.trim(), state.flowToken);
      complete(user, params.get('returnTo'), state.defaultCredentials === true);
    });

  return (
    <AuthCard
      title={t('login.title')}
      subtitle={backup ? t('login.backupSubtitle') : t('login.subtitle')}
      testId="twofa-login-page"
    >
      <Input
        size="large"
        prefix={<SafetyOutlined />}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        onPressEnter={submit}
        placeholder={backup ? t('login.backupPh') : t('login.codePh')}
        maxLength={backup ? 16 : 6}
        inputMode={backup ? 'text' : 'numeric'}
        autoComplete="one-time-code"
        autoFocus
        data-testid="twofa-login-code"
        style={{ marginBottom: 16 }}
      />
      <Button
        type="primary"
        size="large"
        block
        loading={loading}
        disabled={!code.trim()}
        onClick={submit}
        data-testid="twofa-login-submit"
      >
        {t('login.submit')}
      </Button>
      {status?.passkey_login && state.flowToken && (
        <div style={{ marginTop: 12 }}>
          <PasskeyLoginButton
            flowToken={state.flowToken}
            onSignedIn={(user) => complete(user, params.get('returnTo'), state.defaultCredentials === true)}
          />
        </div>
      )}
      <div className="tw-auth-foot" style={{ display: 'flex', justifyContent: 'space-between' }}>
        <Button
          type="link"
          style={{ padding: 0 }}
          onClick={() => {
            setBackup(!backup);
            setCode('');
          }}
          data-testid="twofa-login-toggle"
        >
          {backup ? t('login.useCode') : t('login.useBackup')}
        </Button>
        <Link to="/login">{t('login.back')}</Link>
      </div>
    </AuthCard>
  );
}

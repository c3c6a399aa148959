import { Alert, Button, Input, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { apiPost } from '../../lib/api';
import { useCopy } from '../../components/useCopy';
import { AuthCard } from './AuthCard';
import { useSubmit } from '../../lib/useSubmit';

/** /user/reset: confirms a reset link (POST /api/user/reset {email, token}), shows and copies the new password. */
export default function ResetConfirmPage() {
  const { t } = useTranslation('auth');
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const copy = useCopy();
  const { loading, run } = useSubmit();
  const [password, setPassword] = useState<string | null>(null);

  const submit = async () => {
    await run(async () => {
      const res = await apiPost<string>('/api/user/reset', { email, token });
      const pwd = String(res.data ?? '');
      setPassword(pwd);
      await copy(pwd, t('reset.copied', { password: pwd }));
    });
  };

  return (
    <AuthCard title={t('reset.confirmTitle')} testId="reset-confirm-page">
      {!email || !token ? (
        <Alert type="error" showIcon title={t('reset.invalidLink')} />
      ) : (
        <Space orientation="vertical" size={16} style={{ width: '100%' }}>
          <Input size="large" value={email} disabled />
          {password !== null && (
            <Input.Password
              size="large"
              value={password}
              readOnly
              addonBefore={t('reset.newPassword')}
              data-testid="reset-new-password"
            />
          )}
          <Button
            type="primary"
            size="large"
            block
            loading={loading}
            disabled={password !== null}
            onClick={() => void submit()}
            data-testid="reset-confirm"
          >
            {password !== null ? t('reset.done') : t('reset.confirmSubmit')}
          </Button>
        </Space>
      )}
      <div className="tw-auth-foot">
        <Link to="/login">{t('reset.back')}</Link>
      </div>
    </AuthCard>
  );
}

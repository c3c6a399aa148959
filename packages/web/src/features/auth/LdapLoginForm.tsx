import { ApartmentOutlined, LockOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { loginResolver, type LoginValues } from './loginValues';
import { useTurnstile, withTurnstile } from '../../components/Turnstile';
import { FieldsForm } from '../../components/FieldsForm';
import { TextField } from '../../components/TextField';

/** Directory (LDAP / Active Directory) username and password; POST /api/user/login/ldap. */
export function LdapLoginForm({ onSuccess }: { onSuccess: (user: unknown) => void }) {
  const { t } = useTranslation('auth');
  const { loading, run } = useSubmit();
  const botCheck = useTurnstile();
  const { control, handleSubmit } = useForm<LoginValues>({
    resolver: loginResolver,
    defaultValues: { username: '', password: '' },
  });

  const submit = async (v: LoginValues) => {
    const turnstile = botCheck.take();
    if (turnstile === undefined) return;
    await run(async () => {
      const res = await apiPost<unknown>(withTurnstile('/api/user/login/ldap', turnstile), {
        username: v.username.trim(),
        password: v.password,
      });
      onSuccess(res.data);
    });
  };

  return (
    <FieldsForm onSubmit={handleSubmit(submit)} testid="ldap-login-form">
      <TextField
        control={control}
        name="username"
        label={t('ldap.username')}
        size="large"
        prefix={<ApartmentOutlined />}
        placeholder={t('ldap.usernamePh')}
        autoComplete="username"
        data-testid="ldap-username"
      />
      <TextField
        control={control}
        name="password"
        label={t('ldap.password')}
        password
        size="large"
        prefix={<LockOutlined />}
        placeholder={t('ldap.passwordPh')}
        autoComplete="current-password"
        data-testid="ldap-password"
      />
      {botCheck.widget}
      <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="ldap-submit">
        {t('ldap.submit')}
      </Button>
    </FieldsForm>
  );
}

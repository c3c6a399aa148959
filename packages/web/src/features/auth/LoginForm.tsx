import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { DEFAULT_ROOT, loginResolver, type LoginValues } from './loginValues';
import { useTurnstile, withTurnstile } from '../../components/Turnstile';
import { FieldsForm } from '../../components/FieldsForm';
import { TextField } from '../../components/TextField';

/** Username-or-email and password; POST /api/user/login. */
export function LoginForm({ onSuccess }: { onSuccess: (user: unknown, defaultCredentials: boolean) => void }) {
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
      const res = await apiPost<unknown>(withTurnstile('/api/user/login', turnstile), {
        username: v.username.trim(),
        password: v.password,
      });
      onSuccess(res.data, v.username.trim() === DEFAULT_ROOT.username && v.password === DEFAULT_ROOT.password);
    });
  };

  return (
    <FieldsForm onSubmit={handleSubmit(submit)} testid="login-form">
      <TextField
        control={control}
        name="username"
        label={t('login.username')}
        size="large"
        prefix={<UserOutlined />}
        placeholder={t('login.usernamePh')}
        autoComplete="username"
        data-testid="login-username"
      />
      <TextField
        control={control}
        name="password"
        label={t('login.password')}
        password
        size="large"
        prefix={<LockOutlined />}
        placeholder={t('login.passwordPh')}
        autoComplete="current-password"
        data-testid="login-password"
      />
      {botCheck.widget}
      <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="login-submit">
        {t('login.submit')}
      </Button>
    </FieldsForm>
  );
}

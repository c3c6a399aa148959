import { LockOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import type { ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { loginResolver, type LoginValues } from './loginValues';
import { useTurnstile, withTurnstile } from '../../components/Turnstile';
import { FieldsForm } from '../../components/FieldsForm';
import { TextField } from '../../components/TextField';

interface CredentialsFormProps {
  /** The sign-in route ('/api/user/login', '/api/user/login/ldap'); Turnstile's token is added when it is on. */
  endpoint: string;
  /** The texts' key group in the auth namespace (username, usernamePh, password, passwordPh, submit). */
  texts: 'login' | 'ldap';
  /** The form's test id, and the fields' prefix: `<testid>-username`, `-password`, `-submit`. */
  formTestid: string;
  testid: string;
  userIcon: ReactNode;
  /** The signed-in user (or the second step's challenge) and the name and password that were sent. */
  onSuccess: (user: unknown, sent: LoginValues) => void;
}

/** A user name and a password posted to a sign-in route, with the bot check when it is on. */
export function CredentialsForm({ endpoint, texts, formTestid, testid, userIcon, onSuccess }: CredentialsFormProps) {
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
    const sent = { username: v.username.trim(), password: v.password };
    await run(async () => {
      const res = await apiPost<unknown>(withTurnstile(endpoint, turnstile), sent);
      onSuccess(res.data, sent);
    });
  };

  return (
    <FieldsForm onSubmit={handleSubmit(submit)} testid={formTestid}>
      <TextField
        control={control}
        name="username"
        label={t(`${texts}.username`)}
        size="large"
        prefix={userIcon}
        placeholder={t(`${texts}.usernamePh`)}
        autoComplete="username"
        data-testid={`${testid}-username`}
      />
      <TextField
        control={control}
        name="password"
        label={t(`${texts}.password`)}
        password
        size="large"
        prefix={<LockOutlined />}
        placeholder={t(`${texts}.passwordPh`)}
        autoComplete="current-password"
        data-testid={`${testid}-password`}
      />
      {botCheck.widget}
      <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid={`${testid}-submit`}>
        {t(`${texts}.submit`)}
      </Button>
    </FieldsForm>
  );
}

import { LockOutlined, MailOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { App, Button, Input, Space } from 'antd';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiGet, apiPost } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { FormField } from '../../components/FormField';
import { registerSchema, type RegisterValues } from './schemas';
import { useTurnstile, withTurnstile } from '../../components/Turnstile';
import { useCountdown } from '../../lib/useCountdown';
import { FieldsForm } from '../../components/FieldsForm';
import { TextField } from '../../components/TextField';

/** Username, password, confirmation and (with email verification) email plus code; POST /api/user/register. */
export function RegisterForm({
  emailVerification,
  affCode,
  onSuccess,
}: {
  emailVerification: boolean;
  affCode: string;
  onSuccess: () => void;
}) {
  const { t } = useTranslation('auth');
  const { message } = App.useApp();
  const schema = useMemo(() => registerSchema(emailVerification), [emailVerification]);
  const { control, handleSubmit, getValues, trigger } = useForm<RegisterValues>({
    resolver: zodResolver(schema),
    defaultValues: { username: '', password: '', password2: '', email: '', verification_code: '' },
  });
  const { loading, run } = useSubmit();
  const botCheck = useTurnstile();
  const { loading: sending, run: sendRun } = useSubmit();
  const [left, startCountdown] = useCountdown(30);

  const sendCode = async () => {
    if (!(await trigger('email'))) return;
    const email = getValues('email').trim();
    if (!email) return;
    const turnstile = botCheck.take();
    if (turnstile === undefined) return;
    await sendRun(async () => {
      await apiGet(withTurnstile(`/api/verification?email=${encodeURIComponent(email)}`, turnstile));
      void message.success(t('register.codeSent'));
      startCountdown();
    });
  };

  const submit = async (v: RegisterValues) => {
    const turnstile = botCheck.take();
    if (turnstile === undefined) return;
    await run(async () => {
      await apiPost(withTurnstile('/api/user/register', turnstile), {
        username: v.username.trim(),
        password: v.password,
        password2: v.password2,
        email: v.email.trim(),
        verification_code: v.verification_code.trim(),
        aff_code: affCode,
      });
      void message.success(t('register.success'));
      onSuccess();
    });
  };

  return (
    <FieldsForm onSubmit={handleSubmit(submit)} testid="register-form">
      <TextField
        control={control}
        name="username"
        label={t('register.username')}
        size="large"
        prefix={<UserOutlined />}
        placeholder={t('register.usernamePh')}
        autoComplete="username"
        data-testid="register-username"
      />
      <TextField
        control={control}
        name="password"
        label={t('register.password')}
        password
        size="large"
        prefix={<LockOutlined />}
        placeholder={t('register.passwordPh')}
        autoComplete="new-password"
        data-testid="register-password"
      />
      <TextField
        control={control}
        name="password2"
        label={t('register.confirm')}
        password
        size="large"
        prefix={<LockOutlined />}
        placeholder={t('register.confirmPh')}
        autoComplete="new-password"
        data-testid="register-confirm"
      />
      {emailVerification && (
        <>
          <FormField
            control={control}
            name="email"
            label={t('register.email')}
            render={(f) => (
              <Space.Compact style={{ width: '100%' }}>
                <Input
                  {...f}
                  size="large"
                  type="email"
                  prefix={<MailOutlined />}
                  placeholder={t('register.emailPh')}
                  autoComplete="email"
                  data-testid="register-email"
                />
                <Button
                  size="large"
                  loading={sending}
                  disabled={left > 0}
                  onClick={() => void sendCode()}
                  data-testid="register-send-code"
                >
                  {left > 0 ? t('register.resend', { s: left }) : t('register.sendCode')}
                </Button>
              </Space.Compact>
            )}
          />
          <TextField
            control={control}
            name="verification_code"
            label={t('register.code')}
            size="large"
            prefix={<SafetyOutlined />}
            placeholder={t('register.codePh')}
            data-testid="register-code"
          />
        </>
      )}
      {botCheck.widget}
      <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="register-submit">
        {t('register.submit')}
      </Button>
    </FieldsForm>
  );
}

import { MailOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { App, Button } from 'antd';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { z } from 'zod';
import { apiGet } from '../../lib/api';
import { AuthCard } from './AuthCard';
import { useTurnstile, withTurnstile } from '../../components/Turnstile';
import { useCountdown } from '../../lib/useCountdown';
import { useSubmit } from '../../lib/useSubmit';
import { FieldsForm } from '../../components/FieldsForm';
import { TextField } from '../../components/TextField';

const schema = z.object({
  email: z.string().trim().min(1, 'auth:register.emailRequired').pipe(z.email('auth:register.emailInvalid')),
});
type Values = z.infer<typeof schema>;

/** /reset: sends a reset mail (GET /api/reset_password?email=); a 30-second retry countdown from each click. */
export default function ResetRequestPage() {
  const { t } = useTranslation('auth');
  const { message } = App.useApp();
  const { loading, run } = useSubmit();
  const [left, start] = useCountdown(30);
  const botCheck = useTurnstile();
  const { control, handleSubmit } = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { email: '' } });

  const submit = async (v: Values) => {
    const turnstile = botCheck.take();
    if (turnstile === undefined) return;
    // The spec's retry countdown starts with the click, whatever the answer: no second mail within 30 seconds.
    start();
    await run(async () => {
      await apiGet(withTurnstile(`/api/reset_password?email=${encodeURIComponent(v.email)}`, turnstile));
      void message.success(t('reset.sent'));
    });
  };

  return (
    <AuthCard title={t('reset.title')} subtitle={t('reset.subtitle')} testId="reset-page">
      <FieldsForm onSubmit={handleSubmit(submit)}>
        <TextField
          control={control}
          name="email"
          label={t('reset.email')}
          size="large"
          type="email"
          prefix={<MailOutlined />}
          placeholder={t('reset.emailPh')}
          data-testid="reset-email"
        />
        {botCheck.widget}
        <Button
          type="primary"
          htmlType="submit"
          size="large"
          block
          loading={loading}
          disabled={left > 0}
          data-testid="reset-submit"
        >
          {left > 0 ? t('reset.retry', { s: left }) : t('reset.submit')}
        </Button>
      </FieldsForm>
      <div className="tw-auth-foot">
        <Link to="/login">{t('reset.back')}</Link>
      </div>
    </AuthCard>
  );
}

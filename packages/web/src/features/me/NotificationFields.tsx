import { GlobalOutlined, LockOutlined, MailOutlined } from '@ant-design/icons';
import { Button, InputNumber, Radio, Space } from 'antd';
import type { Control } from 'react-hook-form';
import { useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../components/FormField';
import { useQuotaFormat } from '../../lib/self';
import { THRESHOLD_PRESETS, type SettingsValues } from './settingsSchema';
import { TextField } from '../../components/TextField';

/** Notification tab: method, warning threshold (with presets), webhook or email target. */
export function NotificationFields({
  control,
  setThreshold,
}: {
  control: Control<SettingsValues>;
  setThreshold: (v: number) => void;
}) {
  const { t } = useTranslation('me');
  const fmt = useQuotaFormat();
  const type = useWatch({ control, name: 'notify_type' });
  const threshold = useWatch({ control, name: 'quota_warning_threshold' });
  return (
    <>
      <FormField
        control={control}
        name="notify_type"
        label={t('settings.notifyType')}
        render={(f) => (
          <Radio.Group {...f} optionType="button" buttonStyle="solid" data-testid="me-notify-type">
            <Radio.Button value="email">
              <MailOutlined /> {t('settings.email')}
            </Radio.Button>
            <Radio.Button value="webhook">
              <GlobalOutlined /> {t('settings.webhook')}
            </Radio.Button>
          </Radio.Group>
        )}
      />
      <FormField
        control={control}
        name="quota_warning_threshold"
        label={t('settings.threshold')}
        extra={t('settings.thresholdHint')}
        render={(f) => (
          <div>
            <InputNumber
              aria-label={t('settings.threshold')}
              value={f.value}
              onChange={(v) => f.onChange(v ?? 0)}
              onBlur={f.onBlur}
              min={0}
              precision={0}
              style={{ width: '100%', maxWidth: 320 }}
              suffix={<span style={{ color: 'var(--tw-text-2)' }}>≈ {fmt(Number(threshold) || 0)}</span>}
              data-testid="me-threshold"
            />
            <Space wrap size={6} style={{ marginTop: 8 }}>
              {THRESHOLD_PRESETS.map((p) => (
                <Button
                  key={p}
                  size="small"
                  type={threshold === p ? 'primary' : 'default'}
                  onClick={() => setThreshold(p)}
                >
                  {p.toLocaleString()} ({fmt(p)})
                </Button>
              ))}
            </Space>
          </div>
        )}
      />
      {type === 'webhook' ? (
        <>
          <TextField
            control={control}
            name="webhook_url"
            label={t('settings.webhookUrl')}
            required
            prefix={<GlobalOutlined />}
            placeholder={t('settings.webhookUrlPh')}
            data-testid="me-webhook-url"
          />
          <TextField
            control={control}
            name="webhook_secret"
            label={t('settings.webhookSecret')}
            password
            prefix={<LockOutlined />}
            placeholder={t('settings.webhookSecretPh')}
            autoComplete="off"
            data-testid="me-webhook-secret"
          />
        </>
      ) : (
        <TextField
          control={control}
          name="notification_email"
          label={t('settings.notifyEmail')}
          prefix={<MailOutlined />}
          placeholder={t('settings.notifyEmailPh')}
          data-testid="me-notify-email"
        />
      )}
    </>
  );
}

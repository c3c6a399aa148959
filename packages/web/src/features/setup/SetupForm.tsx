import { CrownOutlined, LockOutlined, UserOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Divider, Flex, Form, Radio, Typography } from 'antd';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../components/FormField';
import { setupSchema, USAGE_MODES, type SetupValues } from './schema';
import { TextField } from '../../components/TextField';

/** Admin account and usage mode. */
export function SetupForm({ loading, onSubmit }: { loading: boolean; onSubmit: (v: SetupValues) => void }) {
  const { t } = useTranslation('setup');
  const { control, handleSubmit } = useForm<SetupValues>({
    resolver: zodResolver(setupSchema),
    defaultValues: { username: 'root', password: '', confirmPassword: '', mode: 'external' },
  });
  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate data-testid="setup-form">
      <Form component="div" layout="vertical">
        <Divider titlePlacement="start" plain>
          <CrownOutlined /> {t('admin')}
        </Divider>
        <TextField
          control={control}
          name="username"
          label={t('username')}
          required
          size="large"
          prefix={<UserOutlined />}
          placeholder={t('usernamePh')}
          autoComplete="username"
          data-testid="setup-username"
        />
        <Flex gap={16} wrap>
          <div style={{ flex: '1 1 220px' }}>
            <TextField
              control={control}
              name="password"
              label={t('password')}
              required
              password
              size="large"
              prefix={<LockOutlined />}
              placeholder={t('passwordPh')}
              autoComplete="new-password"
              data-testid="setup-password"
            />
          </div>
          <div style={{ flex: '1 1 220px' }}>
            <TextField
              control={control}
              name="confirmPassword"
              label={t('confirm')}
              required
              password
              size="large"
              prefix={<LockOutlined />}
              placeholder={t('confirmPh')}
              autoComplete="new-password"
              data-testid="setup-confirm"
            />
          </div>
        </Flex>
        <Divider titlePlacement="start" plain>
          {t('mode')}
        </Divider>
        <FormField
          control={control}
          name="mode"
          render={(f) => (
            <Radio.Group {...f} style={{ width: '100%' }} data-testid="setup-mode">
              <Flex vertical gap={10}>
                {USAGE_MODES.map((m) => (
                  <Radio key={m} value={m} data-testid={`setup-mode-${m}`}>
                    <Typography.Text strong>{t(`modes.${m}`)}</Typography.Text>
                    <br />
                    <Typography.Text type="secondary" style={{ fontSize: 13 }}>
                      {t(`modes.${m}Desc`)}
                    </Typography.Text>
                  </Radio>
                ))}
              </Flex>
            </Radio.Group>
          )}
        />
        <Button type="primary" htmlType="submit" size="large" block loading={loading} data-testid="setup-submit">
          {t('submit')}
        </Button>
      </Form>
    </form>
  );
}

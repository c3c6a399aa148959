import { SaveOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import type { UserPublic } from '@tollway/shared';
import { App, Button, Card, Form, Switch, Tabs } from 'antd';
import { useEffect, useMemo } from 'react';
import { useForm, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiPut } from '../../lib/api';
import { FormField } from '../../components/FormField';
import { SELF_KEY } from '../../lib/self';
import { NotificationFields } from './NotificationFields';
import { SettingText } from './SettingRow';
import { parseSettings, settingsSchema, type SettingsValues } from './settingsSchema';
import { useSubmit } from '../../lib/useSubmit';

function SwitchField({
  control,
  name,
  title,
  desc,
  testId,
}: {
  control: Control<SettingsValues>;
  name: 'accept_unset_model_ratio_model' | 'show_ip_in_logs';
  title: string;
  desc: string;
  testId: string;
}) {
  return (
    <FormField
      control={control}
      name={name}
      render={(f) => (
        <div style={{ display: 'flex', gap: 16, alignItems: 'flex-start', justifyContent: 'space-between' }}>
          <div>
            <SettingText title={title} desc={desc} />
          </div>
          <Switch checked={f.value} onChange={f.onChange} data-testid={testId} />
        </div>
      )}
    />
  );
}

/** Notification, price and other settings in one form: PUT /api/user/setting. */
export function SettingsTabs({ user }: { user: UserPublic }) {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const initial = useMemo(() => parseSettings(user.setting), [user.setting]);
  const { control, handleSubmit, reset, setValue } = useForm<SettingsValues>({
    resolver: zodResolver(settingsSchema),
    defaultValues: initial,
  });
  const { loading: saving, run } = useSubmit();
  useEffect(() => reset(initial), [initial, reset]);

  const save = async (v: SettingsValues) => {
    await run(async () => {
      await apiPut('/api/user/setting', v);
      void message.success(t('settings.saved'));
      void queryClient.invalidateQueries({ queryKey: SELF_KEY });
    });
  };

  return (
    <Card data-testid="me-settings" styles={{ body: { paddingTop: 4 } }}>
      <form onSubmit={handleSubmit(save)} noValidate>
        <Form component="div" layout="vertical">
          <Tabs
            items={[
              {
                key: 'notify',
                label: t('settings.notify'),
                forceRender: true,
                children: (
                  <NotificationFields
                    control={control}
                    setThreshold={(n) =>
                      setValue('quota_warning_threshold', n, { shouldDirty: true, shouldValidate: true })
                    }
                  />
                ),
              },
              {
                key: 'price',
                label: t('settings.price'),
                forceRender: true,
                children: (
                  <SwitchField
                    control={control}
                    name="accept_unset_model_ratio_model"
                    title={t('settings.acceptUnset')}
                    desc={t('settings.acceptUnsetDesc')}
                    testId="me-accept-unset"
                  />
                ),
              },
              {
                key: 'other',
                label: t('settings.other'),
                forceRender: true,
                children: (
                  <SwitchField
                    control={control}
                    name="show_ip_in_logs"
                    title={t('settings.showIp')}
                    desc={t('settings.showIpDesc')}
                    testId="me-show-ip"
                  />
                ),
              },
            ]}
          />
          <Button
            type="primary"
            htmlType="submit"
            icon={<SaveOutlined />}
            loading={saving}
            data-testid="me-settings-save"
          >
            {t('settings.save')}
          </Button>
        </Form>
      </form>
    </Card>
  );
}

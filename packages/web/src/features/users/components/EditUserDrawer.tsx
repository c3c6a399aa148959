import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Col,
  Divider,
  Drawer,
  Flex,
  Form,
  Input,
  InputNumber,
  Result,
  Row,
  Select,
  Skeleton,
  Space,
} from 'antd';
import { DEFAULT_GROUP, periodLimitValues, renderQuota, type PeriodLimitValues } from '@tollway/shared';
import { useEffect, useMemo, useState } from 'react';
import { useForm, useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../../lib/api';
import { useStatus } from '../../../lib/status';
import { getStoredUser } from '../../../lib/storage';
import { fetchUser, updateUser, useGroups, type AdminUser, type UpdateUserInput } from '../api';
import { useIsMobile } from '../../../lib/useIsMobile';
import { DISPLAY_NAME_MAX, editUserSchema, REMARK_MAX, USERNAME_MAX, type EditUserForm } from '../schemas';
import { AddQuotaModal } from './AddQuotaModal';
import { BindingsBlock } from './BindingsBlock';
import { PeriodLimitFields } from '../../../components/PeriodLimitFields';

const NO_PERIOD_LIMITS: PeriodLimitValues = {
  quota_per_day: 0,
  quota_per_week: 0,
  quota_per_month: 0,
  quota_per_5h: 0,
  requests_per_day: 0,
};
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import { TextField } from '../../../components/TextField';

interface Props {
  userId: number | null;
  onClose: () => void;
  onSaved: () => void;
}

const toForm = (u: AdminUser): EditUserForm => ({
  username: u.username ?? '',
  display_name: u.display_name ?? '',
  password: '',
  group: u.group ?? DEFAULT_GROUP,
  quota: u.quota ?? 0,
  remark: u.remark ?? '',
  rpm_limit: u.rpm_limit ?? 0,
  tpm_limit: u.tpm_limit ?? 0,
  ...periodLimitValues({ ...NO_PERIOD_LIMITS, ...u }),
});

/** Edit-user drawer: GET /api/user/{id}, then PUT /api/user/ with the changed form. */
export function EditUserDrawer({ userId, onClose, onSaved }: Props) {
  const { t } = useTranslation('users');
  const { message } = App.useApp();
  const mobile = useIsMobile();
  const { data: status } = useStatus();
  const groups = useGroups();
  const [saving, setSaving] = useState(false);
  const [quotaOpen, setQuotaOpen] = useState(false);
  const open = userId !== null;
  const isSelf = userId !== null && getStoredUser()?.id === userId;

  const user = useQuery({ queryKey: ['user', userId], queryFn: () => fetchUser(userId!), enabled: open, gcTime: 0 });
  const schema = useMemo(() => editUserSchema(t), [t]);
  const { control, handleSubmit, reset, setValue } = useForm<EditUserForm>({
    resolver: zodResolver(schema),
    mode: 'onTouched',
  });
  const quota = useWatch({ control, name: 'quota' });

  useEffect(() => {
    if (user.data) reset(toForm(user.data));
  }, [user.data, reset]);

  const groupOptions = useMemo(() => {
    const names = new Set(groups.data ?? []);
    if (user.data?.group) names.add(user.data.group);
    return [...names].map((g) => ({ value: g, label: g }));
  }, [groups.data, user.data?.group]);

  const submit = handleSubmit(async (v) => {
    if (userId === null) return;
    const body: UpdateUserInput = {
      id: userId,
      username: v.username.trim(),
      display_name: v.display_name.trim(),
      remark: v.remark,
      rpm_limit: v.rpm_limit,
      tpm_limit: v.tpm_limit,
      ...periodLimitValues(v),
    };
    if (v.password !== '') body.password = v.password;
    if (!isSelf) {
      body.group = v.group;
      body.quota = Math.trunc(v.quota);
    }
    setSaving(true);
    try {
      await updateUser(body);
      void message.success(t('toast.updated'));
      onSaved();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    } finally {
      setSaving(false);
    }
  });

  const quotaText = renderQuota(quota ?? 0, { displayInCurrency: true, quotaPerUnit: status?.quota_per_unit });

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={user.data ? t('drawer.editTitleFor', { name: user.data.username }) : t('drawer.editTitle')}
      size={mobile ? '100%' : 900}
      destroyOnHidden
      footer={
        <Flex justify="end" gap={8}>
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button
            type="primary"
            loading={saving}
            disabled={!user.data}
            onClick={() => void submit()}
            data-testid="user-form-submit"
          >
            {t('common:action.submit')}
          </Button>
        </Flex>
      }
    >
      {user.isError ? (
        <Result status="warning" title={t('drawer.loadFailed')} />
      ) : !user.data ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        <Form layout="vertical" onFinish={() => void submit()}>
          <button type="submit" hidden aria-hidden />
          <Divider titlePlacement="start" style={{ marginTop: 0 }}>
            {t('drawer.basic')}
          </Divider>
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <TextField
                control={control}
                name="username"
                label={t('field.username')}
                required
                data-testid="user-form-username"
                maxLength={USERNAME_MAX}
                autoComplete="off"
              />
            </Col>
            <Col xs={24} md={12}>
              <TextField
                control={control}
                name="display_name"
                label={t('field.displayName')}
                data-testid="user-form-display-name"
                maxLength={DISPLAY_NAME_MAX}
                autoComplete="off"
              />
            </Col>
            <Col xs={24} md={12}>
              <TextField
                control={control}
                name="password"
                label={t('field.password')}
                extra={t('hint.passwordEdit')}
                password
                data-testid="user-form-password"
                placeholder={t('placeholder.passwordEdit')}
                autoComplete="new-password"
              />
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label={t('field.email')} extra={t('hint.readOnly')}>
                <Input
                  value={user.data.email || ''}
                  placeholder={t('placeholder.unbound')}
                  readOnly
                  data-testid="user-form-email"
                />
              </Form.Item>
            </Col>
            <Col xs={24}>
              <FormField
                control={control}
                name="remark"
                label={t('field.remark')}
                extra={t('hint.remark')}
                render={(f) => (
                  <Input.TextArea
                    {...f}
                    data-testid="user-form-remark"
                    maxLength={REMARK_MAX}
                    autoSize={{ minRows: 2, maxRows: 6 }}
                  />
                )}
              />
            </Col>
          </Row>
          <Divider titlePlacement="start">{t('drawer.permissions')}</Divider>
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <FormField
                control={control}
                name="group"
                label={t('field.group')}
                extra={isSelf ? t('hint.selfLocked') : undefined}
                render={(f) => (
                  <Select
                    {...f}
                    data-testid="user-form-group"
                    options={groupOptions}
                    loading={groups.isLoading}
                    disabled={isSelf}
                    showSearch
                    placeholder={t('placeholder.group')}
                  />
                )}
              />
            </Col>
            <Col xs={24} md={12}>
              <FormField
                control={control}
                name="quota"
                label={t('field.quota')}
                extra={t('hint.quota', { value: quotaText })}
                render={(f) => (
                  <Space.Compact style={{ width: '100%' }}>
                    <InputNumber
                      {...f}
                      onChange={(v) => f.onChange(typeof v === 'number' ? v : null)}
                      data-testid="user-form-quota"
                      precision={0}
                      disabled={isSelf}
                      style={{ width: '100%' }}
                    />
                    <Button onClick={() => setQuotaOpen(true)} disabled={isSelf} data-testid="user-form-add-quota">
                      {t('actions.addQuota')}
                    </Button>
                  </Space.Compact>
                )}
              />
            </Col>
            <Col xs={24} md={12}>
              <FormField
                control={control}
                name="rpm_limit"
                label={t('field.rpmLimit')}
                extra={t('hint.perMinute')}
                render={(f) => (
                  <IntegerInput
                    value={f.value}
                    onChange={(v) => f.onChange(v ?? 0)}
                    onBlur={f.onBlur}
                    min={0}
                    testid="user-form-rpm"
                  />
                )}
              />
            </Col>
            <Col xs={24} md={12}>
              <FormField
                control={control}
                name="tpm_limit"
                label={t('field.tpmLimit')}
                extra={t('hint.perMinute')}
                render={(f) => (
                  <IntegerInput
                    value={f.value}
                    onChange={(v) => f.onChange(v ?? 0)}
                    onBlur={f.onBlur}
                    min={0}
                    step={1000}
                    testid="user-form-tpm"
                  />
                )}
              />
            </Col>
          </Row>
          <Divider titlePlacement="start">{t('drawer.periodLimits')}</Divider>
          <PeriodLimitFields
            control={control as unknown as Control<PeriodLimitValues>}
            label={(key) => t(`field.${key}`)}
            hint={(key) => t(key === 'requests_per_day' ? 'hint.requestsPerDay' : 'hint.periodQuota')}
            testid="user-form"
          />
          <Divider titlePlacement="start">{t('drawer.bindings')}</Divider>
          <BindingsBlock user={user.data} />
        </Form>
      )}
      <AddQuotaModal
        open={quotaOpen}
        current={quota ?? 0}
        onCancel={() => setQuotaOpen(false)}
        onOk={(next) => {
          setValue('quota', next, { shouldDirty: true, shouldValidate: true });
          setQuotaOpen(false);
        }}
      />
    </Drawer>
  );
}

import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { App, Col, Divider, Form, Input, Row, Select, Switch } from 'antd';
import { useEffect, useMemo } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useSubmit } from '../../../lib/useSubmit';
import { EditorDrawer } from '../../shell/EditorDrawer';
import { FormField } from '../../shell/FormField';
import { createTokens, fetchToken, updateToken, useSelfGroups, useUserModels } from '../api';
import { formDefaults, TOKEN_NAME_MAX, tokenFormSchema, toInput, type TokenForm } from '../schema';
import { CountInput, ExpiryInput, groupOptions, QuotaInput, useQuotaText } from './TokenFormFields';

interface Props {
  /** undefined: closed; null: create; a number: edit that token. */
  target: number | null | undefined;
  onClose: () => void;
  onSaved: () => void;
}

/** The token editor of spec 2 §3–§5 in a side drawer (full width on mobile). */
export function TokenDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('tokens');
  const { message } = App.useApp();
  const open = target !== undefined;
  const creating = target === null;
  const editId = typeof target === 'number' ? target : null;
  const { loading: saving, run } = useSubmit();
  const quotaText = useQuotaText();

  const token = useQuery({ queryKey: ['token', editId], queryFn: () => fetchToken(editId!), enabled: editId !== null, gcTime: 0 });
  const models = useUserModels(open);
  const groups = useSelfGroups(open);

  const schema = useMemo(() => tokenFormSchema(creating), [creating]);
  const { control, handleSubmit, reset, setValue } = useForm<TokenForm>({ resolver: zodResolver(schema), defaultValues: formDefaults() });
  const [unlimited, limitsOn, remain] = useWatch({ control, name: ['unlimited_quota', 'model_limits_enabled', 'remain_quota'] });

  useEffect(() => {
    if (creating) reset(formDefaults());
  }, [creating, reset]);
  useEffect(() => {
    if (editId !== null && token.data) reset(formDefaults(token.data));
  }, [editId, token.data, reset]);

  const modelOptions = useMemo(() => (models.data ?? []).map((m) => ({ value: m, label: m })), [models.data]);
  const groupOpts = useMemo(
    () => groupOptions(groups.data ?? {}, t('hint.userGroup'), (ratio) => t('hint.ratio', { ratio })),
    [groups.data, t],
  );

  const submit = handleSubmit((v) =>
    run(async () => {
      if (creating) {
        const made = await createTokens({ ...toInput(v), count: v.count });
        void message.success(made.length > 1 ? t('toast.createdMany', { count: made.length }) : t('toast.created'));
      } else if (editId !== null) {
        await updateToken({ ...toInput(v), id: editId });
        void message.success(t('toast.updated'));
      }
      onSaved();
    }),
  );

  return (
    <EditorDrawer
      open={open}
      onClose={onClose}
      title={creating ? t('drawer.addTitle') : t('drawer.editTitle')}
      width={640}
      saving={saving}
      loading={editId !== null && token.isPending}
      failed={token.isError ? t('drawer.loadFailed') : undefined}
      onSubmit={() => void submit()}
      testid="token-drawer"
      submitTestid="token-form-submit"
    >
      <Form layout="vertical" onFinish={() => void submit()} requiredMark>
        <Divider titlePlacement="start" style={{ marginTop: 0 }}>
          {t('drawer.basic')}
        </Divider>
        <FormField
          control={control}
          name="name"
          label={t('field.name')}
          required
          render={(f) => <Input {...f} data-testid="token-form-name" placeholder={t('placeholder.name')} maxLength={TOKEN_NAME_MAX} showCount autoFocus />}
        />
        <FormField control={control} name="expired_time" label={t('field.expiry')} render={(f) => <ExpiryInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} />} />
        {creating ? (
          <FormField
            control={control}
            name="count"
            label={t('field.count')}
            extra={t('hint.count')}
            render={(f) => <CountInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} />}
          />
        ) : null}
        <Divider titlePlacement="start">{t('drawer.quota')}</Divider>
        <Row gutter={16}>
          <Col xs={24} sm={16}>
            <FormField
              control={control}
              name="remain_quota"
              label={t('field.remainQuota')}
              extra={unlimited ? t('hint.quotaUnused') : t('hint.quota', { value: quotaText(remain ?? 0) })}
              render={(f) => <QuotaInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} disabled={unlimited} />}
            />
          </Col>
          <Col xs={24} sm={8}>
            <FormField
              control={control}
              name="unlimited_quota"
              label={t('field.unlimited')}
              extra={t('hint.unlimited')}
              render={(f) => <Switch checked={f.value} onChange={f.onChange} data-testid="token-form-unlimited" />}
            />
          </Col>
        </Row>
        <Divider titlePlacement="start">{t('drawer.access')}</Divider>
        <FormField
          control={control}
          name="model_limits_enabled"
          label={t('field.modelLimitsEnabled')}
          extra={t('hint.modelLimits')}
          render={(f) => (
            <Switch
              checked={f.value}
              onChange={(on) => {
                f.onChange(on);
                if (!on) setValue('model_limits', [], { shouldDirty: true });
              }}
              data-testid="token-form-limits-enabled"
            />
          )}
        />
        {limitsOn ? (
          <FormField
            control={control}
            name="model_limits"
            label={t('field.modelLimits')}
            render={(f) => (
              <Select
                {...f}
                mode="multiple"
                allowClear
                maxTagCount="responsive"
                options={modelOptions}
                loading={models.isLoading}
                placeholder={t('placeholder.models')}
                data-testid="token-form-models"
              />
            )}
          />
        ) : null}
        <FormField
          control={control}
          name="allow_ips"
          label={t('field.allowIps')}
          extra={t('hint.allowIps')}
          render={(f) => <Input.TextArea {...f} autoSize={{ minRows: 2, maxRows: 6 }} placeholder={t('placeholder.allowIps')} data-testid="token-form-ips" />}
        />
        <FormField
          control={control}
          name="group"
          label={t('field.group')}
          extra={t('hint.group')}
          render={(f) => (
            <Select
              {...f}
              showSearch={{ optionFilterProp: 'search' }}
              options={groupOpts}
              loading={groups.isLoading}
              placeholder={t('placeholder.group')}
              data-testid="token-form-group"
            />
          )}
        />
        <button type="submit" hidden />
      </Form>
    </EditorDrawer>
  );
}

import { zodResolver } from '@hookform/resolvers/zod';
import { AUTO_GROUP, TOKEN_NAME_MAX, type PeriodLimitValues } from '@tollway/shared';
import { App, Col, Input, Row, Select, Switch } from 'antd';
import { useMemo } from 'react';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormSection } from '../../../components/EditorForm';
import { FormField } from '../../../components/FormField';
import { RecordDrawer } from '../../../components/RecordDrawer';
import { useRecordEditor } from '../../../lib/useRecordEditor';
import { useSelfGroups, useUserModels } from '../../../lib/self';
import { createTokens, fetchToken, updateToken } from '../api';
import { formDefaults, tokenFormSchema, toInput, type TokenForm } from '../schema';
import { IntegerInput } from '../../../components/IntegerInput';
import { TokenRateLimitFields } from './TokenRateLimitFields';
import { PeriodLimitFields } from '../../../components/PeriodLimitFields';
import { CountInput, ExpiryInput, groupOptions, QuotaInput, useQuotaText } from './TokenFormFields';

const resolver = (creating: boolean) => zodResolver(tokenFormSchema(creating));

/** The token's MCP tool lists (`<server>__<tool>` patterns): form field, i18n key and test id. */
const MCP_TOOL_LISTS = [
  { name: 'mcp_allow_tools', label: 'mcpAllowTools', hint: 'mcpTools', testid: 'token-form-mcp-allow' },
  { name: 'mcp_deny_tools', label: 'mcpDenyTools', hint: 'mcpDenyTools', testid: 'token-form-mcp-deny' },
] as const;

interface Props {
  /** undefined: closed; null: create; a number: edit that token. */
  target: number | null | undefined;
  onClose: () => void;
  onSaved: () => void;
}

/** The token editor in a side drawer (full width on mobile). */
export function TokenDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('tokens');
  const { message } = App.useApp();
  const quotaText = useQuotaText();
  const open = target !== undefined;
  const models = useUserModels(open);
  const groups = useSelfGroups(open);

  const editor = useRecordEditor({
    target,
    queryKey: 'token',
    fetch: fetchToken,
    resolver,
    defaults: formDefaults,
    create: async (v) => {
      const made = await createTokens({ ...toInput(v), count: v.count });
      void message.success(made.length > 1 ? t('toast.createdMany', { count: made.length }) : t('toast.created'));
      onSaved();
    },
    update: async (v, id) => {
      await updateToken({ ...toInput(v), id });
      void message.success(t('toast.updated'));
      onSaved();
    },
  });
  const { creating, form } = editor;
  const { control, setValue } = form;
  const [unlimited, limitsOn, remain, group] = useWatch({
    control,
    name: ['unlimited_quota', 'model_limits_enabled', 'remain_quota', 'group'],
  });

  const modelOptions = useMemo(() => (models.data ?? []).map((m) => ({ value: m, label: m })), [models.data]);
  const groupOpts = useMemo(
    () => groupOptions(groups.data ?? {}, t('hint.userGroup'), (ratio) => t('hint.ratio', { ratio })),
    [groups.data, t],
  );

  return (
    <RecordDrawer ns="tokens" editor={editor} width={640} testPrefix="token" nameMax={TOKEN_NAME_MAX} onClose={onClose}>
      <FormField
        control={control}
        name="expired_time"
        label={t('field.expiry')}
        render={(f) => <ExpiryInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} />}
      />
      {creating ? (
        <FormField
          control={control}
          name="count"
          label={t('field.count')}
          extra={t('hint.count')}
          render={(f) => <CountInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} />}
        />
      ) : null}
      <FormSection title={t('drawer.quota')} />
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
      <FormSection title={t('drawer.rateLimits')} />
      <Row gutter={16}>
        <CountField
          control={control}
          name="rpm_limit"
          label={t('field.rpmLimit')}
          extra={t('hint.perMinute')}
          testid="token-form-rpm"
        />
        <CountField
          control={control}
          name="tpm_limit"
          label={t('field.tpmLimit')}
          extra={t('hint.perMinute')}
          testid="token-form-tpm"
          step={1000}
        />
        <CountField
          control={control}
          name="concurrency_limit"
          label={t('field.concurrencyLimit')}
          extra={t('hint.concurrencyLimit')}
          testid="token-form-concurrency"
        />
      </Row>
      <TokenRateLimitFields control={control} />
      <FormSection title={t('drawer.periodLimits')} />
      <PeriodLimitFields
        control={control as unknown as Control<PeriodLimitValues>}
        label={(key) => t(`field.${key}`)}
        hint={(key) => t(key === 'requests_per_day' ? 'hint.requestsPerDay' : 'hint.periodQuota')}
        testid="token-form"
      />
      <FormSection title={t('drawer.access')} />
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
        render={(f) => (
          <Input.TextArea
            {...f}
            autoSize={{ minRows: 2, maxRows: 6 }}
            placeholder={t('placeholder.allowIps')}
            data-testid="token-form-ips"
          />
        )}
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
      {MCP_TOOL_LISTS.map(({ name, label, hint, testid }) => (
        <FormField
          key={name}
          control={control}
          name={name}
          label={t(`field.${label}`)}
          extra={t(`hint.${hint}`)}
          render={(f) => <Input {...f} placeholder="server__tool, docs__*" data-testid={testid} />}
        />
      ))}
      {group === AUTO_GROUP ? (
        <FormField
          control={control}
          name="cross_group_retry"
          label={t('field.crossGroupRetry')}
          extra={t('hint.crossGroupRetry')}
          render={(f) => (
            <Switch
              checked={f.value}
              onChange={f.onChange}
              aria-label={t('field.crossGroupRetry')}
              data-testid="token-form-cross-group-retry"
            />
          )}
        />
      ) : null}
    </RecordDrawer>
  );
}

/** A whole number of the token's limits (0: none), half a row wide. */
function CountField(p: {
  control: Control<TokenForm>;
  name: 'rpm_limit' | 'tpm_limit' | 'concurrency_limit';
  label: string;
  extra: string;
  testid: string;
  step?: number;
}) {
  return (
    <Col xs={24} sm={12}>
      <FormField
        control={p.control}
        name={p.name}
        label={p.label}
        extra={p.extra}
        render={(f) => (
          <IntegerInput
            value={f.value}
            onChange={(v) => f.onChange(v ?? 0)}
            onBlur={f.onBlur}
            min={0}
            step={p.step}
            testid={p.testid}
          />
        )}
      />
    </Col>
  );
}

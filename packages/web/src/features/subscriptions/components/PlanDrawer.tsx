import { App, Col, Row, Select, Switch } from 'antd';
import {
  PLAN_PRICE_MAX,
  PLAN_PRODUCT_ID_MAX,
  PLAN_SUBTITLE_MAX,
  PLAN_TITLE_MAX,
  type SubscriptionPlan,
  type SubscriptionPlanInput,
} from '@tollway/shared';
import { useEffect, useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { EditorForm, FormSection } from '../../../components/EditorForm';
import { ExactNumberInput } from '../../../components/ExactNumberInput';
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import { TextField } from '../../../components/TextField';
import { createPlan, updatePlan, useGroupNames } from '../../../lib/subscriptions';
import { useSubmit } from '../../../lib/useSubmit';
import { formDefaults, PLAN_CURRENCY, planResolver, type PlanForm } from '../schema';
import { PlanPeriodFields } from './PlanPeriodFields';

interface Props {
  /** undefined: closed; null: a new plan; a plan: edit it. */
  target: SubscriptionPlan | null | undefined;
  onClose: () => void;
  onSaved: () => void;
}

/** The product IDs of the card payments, each a text box (empty: that payment is not offered). */
const PRODUCT_FIELDS = [
  { name: 'stripe_price_id', label: 'stripePriceId', testid: 'plan-form-stripe' },
  { name: 'creem_product_id', label: 'creemProductId', testid: 'plan-form-creem' },
  { name: 'waffo_pancake_product_id', label: 'waffoProductId', testid: 'plan-form-waffo' },
] as const;

/** The plan editor in a side drawer: every field of a plan, checked by the shared schema before it is sent. */
export function PlanDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('subscriptions');
  const { message } = App.useApp();
  const { loading, run } = useSubmit();
  const groups = useGroupNames(target !== undefined);
  const resolver = useMemo(() => planResolver(t), [t]);
  const form = useForm<PlanForm, unknown, SubscriptionPlanInput>({ resolver, defaultValues: formDefaults() });
  const { control, handleSubmit, reset } = form;

  useEffect(() => {
    if (target !== undefined) reset(formDefaults(target ?? undefined));
  }, [target, reset]);

  const submit = () =>
    void handleSubmit((plan) =>
      run(async () => {
        if (target) {
          await updatePlan(target.id, plan);
          void message.success(t('toast.updated'));
        } else {
          await createPlan(plan);
          void message.success(t('toast.created'));
        }
        onSaved();
      }),
    )();

  const groupOptions = (groups.data ?? []).map((g) => ({ value: g, label: g }));

  return (
    <EditorDrawer
      open={target !== undefined}
      title={target ? t('drawer.editTitle') : t('drawer.addTitle')}
      width={760}
      onClose={onClose}
      onSubmit={submit}
      saving={loading}
      loading={false}
      testid="plan-drawer"
      submitTestid="plan-form-submit"
    >
      <EditorForm onSubmit={submit}>
        <FormSection first title={t('drawer.basic')} />
        <TextField
          control={control}
          name="title"
          label={t('field.title')}
          required
          placeholder={t('placeholder.title')}
          maxLength={PLAN_TITLE_MAX}
          showCount
          autoFocus
          data-testid="plan-form-title"
        />
        <TextField
          control={control}
          name="subtitle"
          label={t('field.subtitle')}
          placeholder={t('placeholder.subtitle')}
          maxLength={PLAN_SUBTITLE_MAX}
          data-testid="plan-form-subtitle"
        />
        <Row gutter={16}>
          <Col xs={24} sm={10}>
            <FormField
              control={control}
              name="price_amount"
              label={t('field.price')}
              required
              extra={t('hint.price', { currency: PLAN_CURRENCY, max: PLAN_PRICE_MAX })}
              render={(f) => (
                <ExactNumberInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} testid="plan-form-price" />
              )}
            />
          </Col>
          <Col xs={12} sm={7}>
            <FormField
              control={control}
              name="sort_order"
              label={t('field.sortOrder')}
              extra={t('hint.sortOrder')}
              render={(f) => (
                <IntegerInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} testid="plan-form-sort" />
              )}
            />
          </Col>
          <Col xs={12} sm={7}>
            <FormField
              control={control}
              name="enabled"
              label={t('field.enabled')}
              render={(f) => <Switch checked={f.value} onChange={f.onChange} data-testid="plan-form-enabled" />}
            />
          </Col>
        </Row>
        <FormSection title={t('drawer.period')} />
        <PlanPeriodFields control={control} />
        <FormSection title={t('drawer.payment')} />
        <FormField
          control={control}
          name="allow_balance_pay"
          label={t('field.allowBalancePay')}
          extra={t('hint.allowBalancePay')}
          render={(f) => <Switch checked={f.value} onChange={f.onChange} data-testid="plan-form-balance" />}
        />
        {PRODUCT_FIELDS.map(({ name, label, testid }) => (
          <TextField
            key={name}
            control={control}
            name={name}
            label={t(`field.${label}`)}
            extra={t(`hint.${label}`)}
            placeholder={t('placeholder.productId')}
            maxLength={PLAN_PRODUCT_ID_MAX}
            data-testid={testid}
          />
        ))}
        <FormSection title={t('drawer.limits')} />
        <Row gutter={16}>
          <Col xs={24} sm={12}>
            <FormField
              control={control}
              name="max_purchase_per_user"
              label={t('field.maxPurchase')}
              extra={t('hint.maxPurchase')}
              render={(f) => (
                <IntegerInput
                  value={f.value}
                  onChange={f.onChange}
                  onBlur={f.onBlur}
                  min={0}
                  testid="plan-form-max-purchase"
                />
              )}
            />
          </Col>
          <Col xs={24} sm={12}>
            <FormField
              control={control}
              name="upgrade_group"
              label={t('field.upgradeGroup')}
              extra={t('hint.upgradeGroup')}
              render={(f) => (
                <Select
                  value={f.value || undefined}
                  onChange={(v: string | undefined) => f.onChange(v ?? '')}
                  onBlur={f.onBlur}
                  options={groupOptions}
                  allowClear
                  showSearch
                  loading={groups.isLoading}
                  placeholder={t('placeholder.upgradeGroup')}
                  data-testid="plan-form-upgrade-group"
                />
              )}
            />
          </Col>
        </Row>
      </EditorForm>
    </EditorDrawer>
  );
}

import { Col, Row, Select } from 'antd';
import { DEFAULT_QUOTA_PER_UNIT, SUBSCRIPTION_DURATION_UNITS, SUBSCRIPTION_RESET_PERIODS } from '@tollway/shared';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import { useQuotaFormat } from '../../../lib/self';
import { useStatus } from '../../../lib/status';
import { spanOf, wordsOf, type Translate } from '../../../lib/subscription-format';
import type { PlanForm } from '../schema';

/** "That is 2 days" under a box of seconds (nothing while it is empty or 0). */
function useSpanHint() {
  const { t } = useTranslation('subscriptions');
  return (seconds: number | null) =>
    seconds && seconds > 0 ? t('hint.span', { span: wordsOf(t as Translate, spanOf(seconds)) }) : undefined;
}

type CountName = 'custom_seconds' | 'duration_value' | 'total_amount' | 'quota_reset_custom_seconds';

/** A required whole-number box of the plan form (0 or more). */
function CountField(p: {
  control: Control<PlanForm>;
  name: CountName;
  label: string;
  extra?: string | undefined;
  step?: number;
  testid: string;
}) {
  return (
    <FormField
      control={p.control}
      name={p.name}
      label={p.label}
      required
      extra={p.extra}
      render={(f) => (
        <IntegerInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} min={0} step={p.step} testid={p.testid} />
      )}
    />
  );
}

/** The plan's duration, its quota per period (in quota units, as the console enters quota) and when that resets. */
export function PlanPeriodFields({ control }: { control: Control<PlanForm> }) {
  const { t } = useTranslation('subscriptions');
  const fmt = useQuotaFormat();
  const { data: status } = useStatus();
  const perUnit = status?.quota_per_unit || DEFAULT_QUOTA_PER_UNIT;
  const spanHint = useSpanHint();
  const [unit, customSeconds, total, reset, resetSeconds] = useWatch({
    control,
    name: ['duration_unit', 'custom_seconds', 'total_amount', 'quota_reset_period', 'quota_reset_custom_seconds'],
  });

  return (
    <>
      <Row gutter={16}>
        <Col xs={24} sm={12}>
          <FormField
            control={control}
            name="duration_unit"
            label={t('field.durationUnit')}
            required
            render={(f) => (
              <Select
                {...f}
                options={SUBSCRIPTION_DURATION_UNITS.map((u) => ({ value: u, label: t(`unit.${u}`) }))}
                data-testid="plan-form-duration-unit"
              />
            )}
          />
        </Col>
        <Col xs={24} sm={12}>
          {unit === 'custom' ? (
            <CountField
              control={control}
              name="custom_seconds"
              label={t('field.customSeconds')}
              extra={spanHint(customSeconds)}
              testid="plan-form-custom-seconds"
            />
          ) : (
            <CountField
              control={control}
              name="duration_value"
              label={t('field.durationValue')}
              testid="plan-form-duration-value"
            />
          )}
        </Col>
      </Row>
      <CountField
        control={control}
        name="total_amount"
        label={t('field.totalAmount')}
        extra={total ? t('hint.totalAmount', { value: fmt(total) }) : t('hint.totalUnlimited')}
        step={perUnit}
        testid="plan-form-total-amount"
      />
      <Row gutter={16}>
        <Col xs={24} sm={12}>
          <FormField
            control={control}
            name="quota_reset_period"
            label={t('field.resetPeriod')}
            required
            render={(f) => (
              <Select
                {...f}
                options={SUBSCRIPTION_RESET_PERIODS.map((p) => ({ value: p, label: t(`resetPeriod.${p}`) }))}
                data-testid="plan-form-reset-period"
              />
            )}
          />
        </Col>
        {reset === 'custom' ? (
          <Col xs={24} sm={12}>
            <CountField
              control={control}
              name="quota_reset_custom_seconds"
              label={t('field.resetSeconds')}
              extra={spanHint(resetSeconds)}
              testid="plan-form-reset-seconds"
            />
          </Col>
        ) : null}
      </Row>
    </>
  );
}

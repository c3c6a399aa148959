import { Col, Row, Switch } from 'antd';
import type { Control } from 'react-hook-form';
import { useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import type { TokenForm } from '../schema';

/**
 * The token's own request window: when on, at most `count` requests (0: no limit) and `success` successful ones
 * per `period` seconds. Out-of-range numbers are shown as errors, not clamped.
 */
export function TokenRateLimitFields({ control }: { control: Control<TokenForm> }) {
  const { t } = useTranslation('tokens');
  const on = useWatch({ control, name: 'rate_limit_enabled' });
  const number = (name: 'rate_limit_period' | 'rate_limit_count' | 'rate_limit_success', testid: string) => (
    <FormField
      control={control}
      name={name}
      label={t(`field.${testid}`)}
      extra={t(`hint.${testid}`)}
      render={(f) => (
        <IntegerInput
          value={f.value}
          onChange={(v) => f.onChange(v ?? Number.NaN)}
          onBlur={f.onBlur}
          testid={`token-form-${testid}`}
        />
      )}
    />
  );
  return (
    <>
      <FormField
        control={control}
        name="rate_limit_enabled"
        label={t('field.rateEnabled')}
        extra={t('hint.rateEnabled')}
        render={(f) => <Switch checked={f.value} onChange={f.onChange} data-testid="token-form-rate-enabled" />}
      />
      {on ? (
        <Row gutter={16}>
          <Col xs={24} sm={8}>
            {number('rate_limit_period', 'ratePeriod')}
          </Col>
          <Col xs={24} sm={8}>
            {number('rate_limit_count', 'rateCount')}
          </Col>
          <Col xs={24} sm={8}>
            {number('rate_limit_success', 'rateSuccess')}
          </Col>
        </Row>
      ) : null}
    </>
  );
}

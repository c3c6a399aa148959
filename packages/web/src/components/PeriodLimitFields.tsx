import { PERIOD_LIMIT_KEYS, type PeriodLimitKey, type PeriodLimitValues } from '@tollway/shared';
import { Col, InputNumber, Row } from 'antd';
import type { Control } from 'react-hook-form';
import { FormField } from './FormField';

/** A step of the quota boxes: $1 at the default 500000 quota per dollar. */
const QUOTA_STEP = 500_000;

interface Props {
  /** A form that holds the five period limit fields (token editor, admin user editor). */
  control: Control<PeriodLimitValues>;
  /** Label and hint of each field, in the caller's feature texts. */
  label: (key: PeriodLimitKey) => string;
  hint: (key: PeriodLimitKey) => string;
  /** data-testid prefix: `<prefix>-quota_per_day` and so on. */
  testid: string;
}

/**
 * Quota per day, week, month and 5 hours, and requests per day: whole numbers, 0 meaning none. The boxes set neither
 * `min` nor `precision` (no silent clamping, docs/console.md): antd would turn a typed -5 into 0 on blur — no limit at
 * all — and 1.5 into 2, and save them without a word; the form's schema names the rule under the field instead.
 */
export function PeriodLimitFields({ control, label, hint, testid }: Props) {
  return (
    <Row gutter={16}>
      {PERIOD_LIMIT_KEYS.map((key) => (
        <Col xs={24} sm={12} key={key}>
          <FormField
            control={control}
            name={key}
            label={label(key)}
            extra={hint(key)}
            render={(f) => (
              <InputNumber
                data-testid={`${testid}-${key}`}
                value={f.value}
                onChange={(v) => f.onChange(typeof v === 'number' ? v : 0)}
                onBlur={f.onBlur}
                step={key === 'requests_per_day' ? 1 : QUOTA_STEP}
                style={{ width: '100%' }}
              />
            )}
          />
        </Col>
      ))}
    </Row>
  );
}

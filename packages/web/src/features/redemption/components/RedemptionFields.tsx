import { Button, DatePicker } from 'antd';
import { DEFAULT_QUOTA_PER_UNIT } from '@tollway/shared';
import dayjs from 'dayjs';
import { useStatus } from '../../../lib/status';
import { useQuotaFormat } from '../../../lib/self';
import { IntegerInput } from '../../../components/IntegerInput';
import { DOLLAR_PRESETS, TIME_FORMAT } from '../schema';

interface NumberProps {
  value: number | null;
  onChange: (v: number | null) => void;
  onBlur: () => void;
}

/** Quota in quota units, with dollar presets (1, 10, 50, 100, 500, 1000 dollars). */
export function QuotaInput({ value, onChange, onBlur }: NumberProps) {
  const { data: status } = useStatus();
  const perUnit = status?.quota_per_unit || DEFAULT_QUOTA_PER_UNIT;
  const fmt = useQuotaFormat();
  return (
    <div>
      <IntegerInput
        value={value}
        onChange={onChange}
        onBlur={onBlur}
        min={1}
        step={perUnit}
        testid="redemption-form-quota"
      />
      <div className="tw-red-quick">
        {DOLLAR_PRESETS.map((d) => {
          const q = d * perUnit;
          return (
            <Button
              key={d}
              size="small"
              type={value === q ? 'primary' : 'default'}
              ghost={value === q}
              onClick={() => onChange(q)}
              data-testid={`redemption-form-preset-${d}`}
            >
              {fmt(q)}
            </Button>
          );
        })}
      </div>
    </div>
  );
}

interface TimeProps {
  value: number | null;
  onChange: (v: number | null) => void;
  onBlur: () => void;
  placeholder: string;
  testid: string;
}

/**
 * A date-time as epoch seconds; cleared means none (null). Enter confirms a typed date in the picker and does
 * not submit the surrounding form.
 */
export function EpochInput({ value, onChange, onBlur, placeholder, testid }: TimeProps) {
  return (
    <div onKeyDown={(e) => e.key === 'Enter' && e.preventDefault()}>
      <DatePicker
        data-testid={testid}
        showTime
        format={TIME_FORMAT}
        value={value ? dayjs.unix(value) : null}
        placeholder={placeholder}
        onChange={(d) => onChange(d ? d.unix() : null)}
        onBlur={onBlur}
        style={{ width: '100%' }}
      />
    </div>
  );
}

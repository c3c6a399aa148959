import { InputNumber } from 'antd';

interface Props {
  value: number | null;
  /** null while the box is empty. */
  onChange: (value: number | null) => void;
  onBlur?: () => void;
  step?: number;
  disabled?: boolean;
  placeholder?: string;
  testid: string;
}

/**
 * A number box that keeps what was typed: no rounding to whole numbers and no clamping to a range, so the form's
 * own check shows why 0, 101 or 1.5 is refused instead of saving a silently changed value.
 */
export function ExactNumberInput({ value, onChange, onBlur, testid, ...rest }: Props) {
  return (
    <InputNumber
      data-testid={testid}
      value={value}
      onChange={(v) => onChange(typeof v === 'number' ? v : null)}
      onBlur={onBlur}
      style={{ width: '100%' }}
      {...rest}
    />
  );
}

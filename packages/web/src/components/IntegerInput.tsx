import { InputNumber } from 'antd';

interface Props {
  value: number | null;
  /** null while the box is empty. */
  onChange: (value: number | null) => void;
  onBlur?: () => void;
  min?: number;
  max?: number;
  step?: number;
  disabled?: boolean;
  placeholder?: string;
  testid: string;
}

/** A whole-number box of a form, full width. */
export function IntegerInput({ value, onChange, onBlur, testid, ...limits }: Props) {
  return (
    <InputNumber
      data-testid={testid}
      value={value}
      precision={0}
      onChange={(v) => onChange(typeof v === 'number' ? v : null)}
      onBlur={onBlur}
      style={{ width: '100%' }}
      {...limits}
    />
  );
}

import { InputNumber } from 'antd';

/** The administrators' channel id filter: a positive integer, or null when empty; Enter searches. */
export function ChannelIdInput(props: {
  value: number | null;
  placeholder: string;
  testId: string;
  onChange: (v: number | null) => void;
  onSearch: () => void;
}) {
  return (
    <InputNumber
      value={props.value}
      min={1}
      precision={0}
      placeholder={props.placeholder}
      onChange={(v) => props.onChange(typeof v === 'number' ? v : null)}
      onPressEnter={props.onSearch}
      style={{ width: '100%', minWidth: 0 }}
      data-testid={props.testId}
    />
  );
}

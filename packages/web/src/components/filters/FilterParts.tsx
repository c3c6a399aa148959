import { ReloadOutlined } from '@ant-design/icons';
import { Button, DatePicker, Flex } from 'antd';
import type { Dayjs } from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchButton } from '../SearchButton';

/** How the log and task filters show a picked time. */
export const FILTER_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

const FIELD = { width: '100%', minWidth: 0 } as const;

interface RangeProps {
  start: Dayjs | null;
  end: Dayjs | null;
  placeholder: [string, string];
  onChange: (range: { start: Dayjs | null; end: Dayjs | null }) => void;
  testid: string;
}

/** The time range of a log filter form, either end may stay empty. */
export function TimeRangeInput({ start, end, placeholder, onChange, testid }: RangeProps) {
  return (
    <DatePicker.RangePicker
      showTime
      format={FILTER_TIME_FORMAT}
      value={[start, end]}
      placeholder={placeholder}
      allowEmpty={[true, true]}
      onChange={(v) => onChange({ start: v?.[0] ?? null, end: v?.[1] ?? null })}
      className="tw-log-range"
      style={FIELD}
      data-testid={testid}
    />
  );
}

interface ActionProps {
  loading: boolean;
  resetLabel: string;
  /** Test ids are `${testPrefix}-search`, `-reset` and `-refresh`. */
  testPrefix: string;
  onSearch: () => void;
  onReset: () => void;
  onRefresh: () => void;
  /** Put after the refresh button. */
  extra?: ReactNode;
}

/** Search, reset and (at the far end) refresh of a log filter form. */
export function FilterActions({ loading, resetLabel, testPrefix, onSearch, onReset, onRefresh, extra }: ActionProps) {
  const { t } = useTranslation();
  return (
    <Flex gap={8} className="tw-log-actions">
      <SearchButton type="primary" busy={loading} onSearch={onSearch} testid={`${testPrefix}-search`} />
      <Button onClick={onReset} data-testid={`${testPrefix}-reset`}>
        {resetLabel}
      </Button>
      <Flex gap={8} style={{ marginInlineStart: 'auto' }}>
        <Button
          icon={<ReloadOutlined />}
          onClick={onRefresh}
          aria-label={t('common:action.refresh')}
          data-testid={`${testPrefix}-refresh`}
        />
        {extra}
      </Flex>
    </Flex>
  );
}

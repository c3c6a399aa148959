import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, DatePicker, Flex, Input } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { withTimestamps } from '../../lib/timeRange';
import { ChannelIdInput } from '../logs/components/ChannelIdInput';
import type { TaskFilters as Filters } from './api';

/** The filter form's state: the filters with the time range as pickers' values. */
export interface TaskDraft extends Omit<Filters, 'start_timestamp' | 'end_timestamp'> {
  start: Dayjs | null;
  end: Dayjs | null;
}

export const toFilters = (d: TaskDraft): Filters => withTimestamps(d);

interface Props {
  draft: TaskDraft;
  admin: boolean;
  loading: boolean;
  /** Placeholder of the task id box (drawing id or task id). */
  idLabel: string;
  testPrefix: string;
  onChange: (patch: Partial<TaskDraft>) => void;
  onSearch: () => void;
  onReset: () => void;
  onRefresh: () => void;
}

/** Submit-time range and task id; administrators also filter by channel id. */
export function TaskFilters({ draft, admin, loading, idLabel, testPrefix, onChange, onSearch, onReset, onRefresh }: Props) {
  const { t } = useTranslation('tasks');
  const field = { width: '100%', minWidth: 0 } as const;
  return (
    <div className="tw-log-filters" style={{ marginBottom: 16 }}>
      <DatePicker.RangePicker
        showTime
        format="YYYY-MM-DD HH:mm:ss"
        value={[draft.start, draft.end]}
        placeholder={[t('filter.start'), t('filter.end')]}
        allowEmpty={[true, true]}
        onChange={(v) => onChange({ start: v?.[0] ?? null, end: v?.[1] ?? null })}
        className="tw-log-range"
        style={field}
        data-testid={`${testPrefix}-range`}
      />
      <Input allowClear value={draft.id} placeholder={idLabel} onChange={(e) => onChange({ id: e.target.value })} onPressEnter={onSearch} style={field} data-testid={`${testPrefix}-id`} />
      {admin ? (
        <ChannelIdInput value={draft.channel} placeholder={t('filter.channel')} testId={`${testPrefix}-channel`} onChange={(channel) => onChange({ channel })} onSearch={onSearch} />
      ) : null}
      <Flex gap={8} className="tw-log-actions">
        <Button type="primary" icon={<SearchOutlined />} loading={loading} onClick={onSearch} data-testid={`${testPrefix}-search`}>
          {t('common:action.search')}
        </Button>
        <Button onClick={onReset}>{t('filter.reset')}</Button>
        <Button icon={<ReloadOutlined />} onClick={onRefresh} aria-label={t('common:action.refresh')} style={{ marginInlineStart: 'auto' }} />
      </Flex>
    </div>
  );
}

import { Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { withTimestamps, type PickerDraft } from '../../lib/timeRange';
import { ChannelIdInput } from '../../components/filters/ChannelIdInput';
import { FilterActions, TimeRangeInput } from '../../components/filters/FilterParts';
import type { TaskFilters as Filters } from './api';

/** The filter form's state: the filters with the time range as pickers' values. */
export type TaskDraft = PickerDraft<Filters>;

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
export function TaskFilters({
  draft,
  admin,
  loading,
  idLabel,
  testPrefix,
  onChange,
  onSearch,
  onReset,
  onRefresh,
}: Props) {
  const { t } = useTranslation('tasks');
  return (
    <div className="tw-log-filters" style={{ marginBottom: 16 }}>
      <TimeRangeInput
        start={draft.start}
        end={draft.end}
        placeholder={[t('filter.start'), t('filter.end')]}
        onChange={onChange}
        testid={`${testPrefix}-range`}
      />
      <Input
        allowClear
        value={draft.id}
        placeholder={idLabel}
        onChange={(e) => onChange({ id: e.target.value })}
        onPressEnter={onSearch}
        style={{ width: '100%', minWidth: 0 }}
        data-testid={`${testPrefix}-id`}
      />
      {admin ? (
        <ChannelIdInput
          value={draft.channel}
          placeholder={t('filter.channel')}
          testId={`${testPrefix}-channel`}
          onChange={(channel) => onChange({ channel })}
          onSearch={onSearch}
        />
      ) : null}
      <FilterActions
        loading={loading}
        resetLabel={t('filter.reset')}
        testPrefix={testPrefix}
        onSearch={onSearch}
        onReset={onReset}
        onRefresh={onRefresh}
      />
    </div>
  );
}

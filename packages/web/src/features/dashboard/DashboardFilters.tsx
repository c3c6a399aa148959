import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { AutoComplete, Button, DatePicker, Segmented } from 'antd';
import { DATA_GRANULARITIES, type DataGranularity } from '@tollway/shared';
import { useQuery } from '@tanstack/react-query';
import type { Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { searchUsernames } from './api';

export interface DashboardDraft {
  start: Dayjs;
  end: Dayjs;
  username: string;
}

interface Props {
  draft: DashboardDraft;
  admin: boolean;
  granularity: DataGranularity;
  loading: boolean;
  onChange: (patch: Partial<DashboardDraft>) => void;
  onGranularity: (g: DataGranularity) => void;
  /** Applies the draft (with `patch`, for a value chosen in the same event). */
  onQuery: (patch?: Partial<DashboardDraft>) => void;
  onRefresh: () => void;
}

/** Administrators pick a user by name; suggestions come from the user search as they type; picking one queries. */
function UserPicker({
  value,
  onChange,
  onPick,
}: {
  value: string;
  onChange: (v: string) => void;
  onPick: (v: string) => void;
}) {
  const { t } = useTranslation('dashboard');
  const [typed, setTyped] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setTyped(value.trim()), 300);
    return () => clearTimeout(id);
  }, [value]);
  const names = useQuery({
    queryKey: ['dashboard-users', typed],
    queryFn: () => searchUsernames(typed),
    enabled: typed !== '',
    staleTime: 30_000,
  });
  return (
    <AutoComplete
      allowClear
      value={value}
      options={(names.data ?? []).map((n) => ({ value: n }))}
      onChange={(v) => onChange(v ?? '')}
      onSelect={(v: string) => onPick(v)}
      placeholder={t('filter.username')}
      className="tw-dash-user"
      data-testid="dashboard-username"
      onKeyDown={(e) => e.key === 'Enter' && onPick(value)}
    />
  );
}

/** Time range, user (administrators), query and refresh; the granularity regroups what is loaded. */
export function DashboardFilters({
  draft,
  admin,
  granularity,
  loading,
  onChange,
  onGranularity,
  onQuery,
  onRefresh,
}: Props) {
  const { t } = useTranslation('dashboard');
  return (
    <div className="tw-dash-filters">
      <DatePicker.RangePicker
        showTime={{ format: 'HH:mm' }}
        format="YYYY-MM-DD HH:mm"
        value={[draft.start, draft.end]}
        placeholder={[t('filter.start'), t('filter.end')]}
        allowClear={false}
        onChange={(v) => v?.[0] && v[1] && onChange({ start: v[0], end: v[1] })}
        className="tw-dash-range"
        data-testid="dashboard-range"
      />
      {admin && (
        <UserPicker
          value={draft.username}
          onChange={(username) => onChange({ username })}
          onPick={(username) => onQuery({ username })}
        />
      )}
      <Segmented<DataGranularity>
        value={granularity}
        options={DATA_GRANULARITIES.map((g) => ({ value: g, label: t(`granularity.${g}`) }))}
        onChange={onGranularity}
        data-testid="dashboard-granularity"
      />
      <Button
        type="primary"
        icon={<SearchOutlined />}
        loading={loading}
        onClick={() => onQuery()}
        data-testid="dashboard-query"
      >
        {t('filter.query')}
      </Button>
      <Button
        icon={<ReloadOutlined />}
        onClick={onRefresh}
        aria-label={t('filter.refresh')}
        data-testid="dashboard-refresh"
      />
    </div>
  );
}

import { AutoComplete, DatePicker, Input, Select } from 'antd';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { withTimestamps, type PickerDraft } from '../../../lib/timeRange';
import { useIsMobile } from '../../../lib/useIsMobile';
import { LOG_TYPES, type LogFilters } from '../api';
import { ChannelIdInput } from '../../../components/filters/ChannelIdInput';
import { FILTER_TIME_FORMAT, FilterActions, TimeRangeInput } from '../../../components/filters/FilterParts';

/** The filter form's state: LogFilters with the time range as pickers' values. */
export type LogDraft = PickerDraft<LogFilters>;

/** Default range: the last 24 hours up to one hour ahead. */
export function defaultDraft(): LogDraft {
  const now = dayjs();
  return {
    type: 0,
    token_name: '',
    model_name: '',
    group: '',
    username: '',
    channel: null,
    start: now.subtract(24, 'hour'),
    end: now.add(1, 'hour'),
  };
}

export const toFilters = (d: LogDraft): LogFilters => withTimestamps(d);

interface Props {
  draft: LogDraft;
  admin: boolean;
  loading: boolean;
  groups: string[];
  onChange: (patch: Partial<LogDraft>) => void;
  /** The type select applies at once. */
  onTypeChange: (type: number) => void;
  onSearch: () => void;
  onReset: () => void;
  onRefresh: () => void;
  extra?: ReactNode;
}

/** Time range, token, model and group filters (admins add username and channel id), log type, search and reset. */
export function LogsFilters({
  draft,
  admin,
  loading,
  groups,
  onChange,
  onTypeChange,
  onSearch,
  onReset,
  onRefresh,
  extra,
}: Props) {
  const { t } = useTranslation('logs');
  const mobile = useIsMobile();
  const field = { width: '100%', minWidth: 0 } as const;
  const typeOptions = [
    { value: 0, label: t('type.all') },
    ...LOG_TYPES.map((v) => ({ value: v, label: t(`type.${v}`) })),
  ];

  return (
    <div style={{ marginBottom: 16 }}>
      <div className="tw-log-filters">
        {mobile ? (
          <>
            <DatePicker
              showTime
              format={FILTER_TIME_FORMAT}
              value={draft.start}
              placeholder={t('filter.start')}
              onChange={(v) => onChange({ start: v })}
              className="tw-log-range"
              style={field}
              data-testid="logs-start"
            />
            <DatePicker
              showTime
              format={FILTER_TIME_FORMAT}
              value={draft.end}
              placeholder={t('filter.end')}
              onChange={(v) => onChange({ end: v })}
              className="tw-log-range"
              style={field}
              data-testid="logs-end"
            />
          </>
        ) : (
          <TimeRangeInput
            start={draft.start}
            end={draft.end}
            placeholder={[t('filter.start'), t('filter.end')]}
            onChange={onChange}
            testid="logs-range"
          />
        )}
        <Input
          allowClear
          value={draft.token_name}
          placeholder={t('filter.tokenName')}
          onChange={(e) => onChange({ token_name: e.target.value })}
          onPressEnter={onSearch}
          style={field}
          data-testid="logs-token-name"
        />
        <Input
          allowClear
          value={draft.model_name}
          placeholder={t('filter.modelName')}
          onChange={(e) => onChange({ model_name: e.target.value })}
          onPressEnter={onSearch}
          style={field}
          data-testid="logs-model-name"
        />
        <AutoComplete
          allowClear
          value={draft.group}
          options={groups.map((g) => ({ value: g }))}
          placeholder={t('filter.group')}
          aria-label={t('filter.group')}
          onChange={(v) => onChange({ group: v ?? '' })}
          showSearch={{
            filterOption: (input, opt) =>
              String(opt?.value ?? '')
                .toLowerCase()
                .includes(input.toLowerCase()),
          }}
          style={field}
          data-testid="logs-group"
        />
        {admin ? (
          <>
            <Input
              allowClear
              value={draft.username}
              placeholder={t('filter.username')}
              onChange={(e) => onChange({ username: e.target.value })}
              onPressEnter={onSearch}
              style={field}
              data-testid="logs-username"
            />
            <ChannelIdInput
              value={draft.channel}
              placeholder={t('filter.channel')}
              testId="logs-channel"
              onChange={(channel) => onChange({ channel })}
              onSearch={onSearch}
            />
          </>
        ) : null}
        <Select
          value={draft.type}
          options={typeOptions}
          onChange={onTypeChange}
          style={field}
          aria-label={t('filter.type')}
          data-testid="logs-type"
        />
        <FilterActions
          loading={loading}
          resetLabel={t('filter.reset')}
          testPrefix="logs"
          onSearch={onSearch}
          onReset={onReset}
          onRefresh={onRefresh}
          extra={extra}
        />
      </div>
    </div>
  );
}

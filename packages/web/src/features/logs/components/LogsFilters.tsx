import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { AutoComplete, Button, DatePicker, Flex, Input, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { withTimestamps } from '../../../lib/timeRange';
import { useIsMobile } from '../../shell/useIsMobile';
import { LOG_TYPES, type LogFilters } from '../api';
import { ChannelIdInput } from './ChannelIdInput';

/** The filter form's state: LogFilters with the time range as pickers' values. */
export interface LogDraft extends Omit<LogFilters, 'start_timestamp' | 'end_timestamp'> {
  start: Dayjs | null;
  end: Dayjs | null;
}

const TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Default range (spec 3 §9, simplified): the last 24 hours up to one hour ahead. */
export function defaultDraft(): LogDraft {
  const now = dayjs();
  return { type: 0, token_name: '', model_name: '', group: '', username: '', channel: null, start: now.subtract(24, 'hour'), end: now.add(1, 'hour') };
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
export function LogsFilters({ draft, admin, loading, groups, onChange, onTypeChange, onSearch, onReset, onRefresh, extra }: Props) {
  const { t } = useTranslation('logs');
  const mobile = useIsMobile();
  const field = { width: '100%', minWidth: 0 } as const;
  const typeOptions = [{ value: 0, label: t('type.all') }, ...LOG_TYPES.map((v) => ({ value: v, label: t(`type.${v}`) }))];

  return (
    <div style={{ marginBottom: 16 }}>
      <div className="tw-log-filters">
        {mobile ? (
          <>
            <DatePicker showTime format={TIME_FORMAT} value={draft.start} placeholder={t('filter.start')} onChange={(v) => onChange({ start: v })} className="tw-log-range" style={field} data-testid="logs-start" />
            <DatePicker showTime format={TIME_FORMAT} value={draft.end} placeholder={t('filter.end')} onChange={(v) => onChange({ end: v })} className="tw-log-range" style={field} data-testid="logs-end" />
          </>
        ) : (
          <DatePicker.RangePicker
            showTime
            format={TIME_FORMAT}
            value={[draft.start, draft.end]}
            placeholder={[t('filter.start'), t('filter.end')]}
            allowEmpty={[true, true]}
            onChange={(v) => onChange({ start: v?.[0] ?? null, end: v?.[1] ?? null })}
            className="tw-log-range"
            style={field}
            data-testid="logs-range"
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
          onChange={(v) => onChange({ group: v ?? '' })}
          showSearch={{ filterOption: (input, opt) => String(opt?.value ?? '').toLowerCase().includes(input.toLowerCase()) }}
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
            <ChannelIdInput value={draft.channel} placeholder={t('filter.channel')} testId="logs-channel" onChange={(channel) => onChange({ channel })} onSearch={onSearch} />
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
        <Flex gap={8} className="tw-log-actions">
          <Button type="primary" icon={<SearchOutlined />} loading={loading} onClick={onSearch} data-testid="logs-search">
            {t('common:action.search')}
          </Button>
          <Button onClick={onReset} data-testid="logs-reset">
            {t('filter.reset')}
          </Button>
          <Flex gap={8} style={{ marginInlineStart: 'auto' }}>
            <Button icon={<ReloadOutlined />} onClick={onRefresh} aria-label={t('common:action.refresh')} data-testid="logs-refresh" />
            {extra}
          </Flex>
        </Flex>
      </div>
    </div>
  );
}

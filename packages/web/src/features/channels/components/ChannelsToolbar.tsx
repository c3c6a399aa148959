import { PlusOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Select, Switch, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useChannelGroups, type ChannelFilter } from '../api';
import { TipButton } from '../../../components/TipButton';
import { SearchButton } from '../../../components/SearchButton';

interface Props {
  draft: ChannelFilter;
  loading: boolean;
  idSort: boolean;
  bulk: boolean;
  tagMode: boolean;
  bulkMenu: ReactNode;
  onDraftChange: (d: ChannelFilter) => void;
  onSearch: (d?: ChannelFilter) => void;
  onIdSort: (v: boolean) => void;
  onBulk: (v: boolean) => void;
  onTagMode: (v: boolean) => void;
  onAdd: () => void;
  onRefresh: () => void;
  /** The column settings button. */
  columnSettings: ReactNode;
}

function Toggle({
  label,
  checked,
  onChange,
  testId,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  testId: string;
}) {
  return (
    <label className="tw-ch-toggle">
      <Switch size="small" checked={checked} onChange={onChange} data-testid={testId} aria-label={label} />
      <Typography.Text>{label}</Typography.Text>
    </label>
  );
}

/** Search by keyword, model and group; ID sort, bulk and tag toggles; add, refresh, bulk menu, columns. */
export function ChannelsToolbar(p: Props) {
  const { t } = useTranslation('channels');
  const groups = useChannelGroups();
  const groupOptions = [
    { value: '', label: t('filter.allGroups') },
    ...(groups.data ?? []).map((g) => ({ value: g, label: g })),
  ];
  const set = (patch: Partial<ChannelFilter>) => p.onDraftChange({ ...p.draft, ...patch });
  return (
    <div className="tw-ch-toolbar">
      <Flex wrap gap={8} className="tw-ch-filters">
        <Input
          data-testid="channels-search"
          allowClear
          value={p.draft.keyword}
          prefix={<SearchOutlined />}
          placeholder={t('filter.keyword')}
          onChange={(e) => set({ keyword: e.target.value })}
          onPressEnter={() => p.onSearch()}
          className="tw-ch-keyword"
        />
        <Input
          data-testid="channels-model-filter"
          allowClear
          value={p.draft.model}
          placeholder={t('filter.model')}
          onChange={(e) => set({ model: e.target.value })}
          onPressEnter={() => p.onSearch()}
          className="tw-ch-model"
        />
        <Select
          data-testid="channels-group-filter"
          aria-label={t('col.group')}
          value={p.draft.group}
          options={groupOptions}
          loading={groups.isLoading}
          showSearch
          onChange={(group: string) => p.onSearch({ ...p.draft, group })}
          className="tw-ch-group"
          popupMatchSelectWidth={false}
        />
        <SearchButton busy={p.loading} onSearch={p.onSearch} testid="channels-search-submit" />
      </Flex>
      <Flex wrap gap={8} justify="space-between" align="center" className="tw-ch-controls">
        <Flex wrap gap={16} align="center">
          <Toggle label={t('toggle.idSort')} checked={p.idSort} onChange={p.onIdSort} testId="channels-id-sort" />
          <Toggle label={t('toggle.bulk')} checked={p.bulk} onChange={p.onBulk} testId="channels-bulk-mode" />
          <Toggle label={t('toggle.tagMode')} checked={p.tagMode} onChange={p.onTagMode} testId="channels-tag-mode" />
        </Flex>
        <Flex wrap gap={8}>
          {p.columnSettings}
          <TipButton
            label={t('common:action.refresh')}
            icon={<ReloadOutlined />}
            onClick={p.onRefresh}
            data-testid="channels-refresh"
          />
          {p.bulkMenu}
          <Button type="primary" icon={<PlusOutlined />} onClick={p.onAdd} data-testid="channels-add">
            {t('actions.add')}
          </Button>
        </Flex>
      </Flex>
    </div>
  );
}

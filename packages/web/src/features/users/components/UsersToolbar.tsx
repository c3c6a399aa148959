import { PlusOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGroups } from '../api';
import { SearchButton } from '../../../components/SearchButton';

interface Props {
  keyword: string;
  group: string;
  loading: boolean;
  onKeywordChange: (v: string) => void;
  onSearch: () => void;
  onGroupChange: (g: string) => void;
  onAdd: () => void;
  onRefresh: () => void;
}

/** Keyword search, group filter, add and refresh. */
export function UsersToolbar({
  keyword,
  group,
  loading,
  onKeywordChange,
  onSearch,
  onGroupChange,
  onAdd,
  onRefresh,
}: Props) {
  const { t } = useTranslation('users');
  const groups = useGroups();
  const options = [
    { value: '', label: t('filter.allGroups') },
    ...(groups.data ?? []).map((g) => ({ value: g, label: g })),
  ];
  return (
    <Flex wrap gap={8} justify="space-between" style={{ marginBottom: 16 }}>
      <Flex wrap gap={8} style={{ flex: '1 1 420px', minWidth: 0 }}>
        <Input
          data-testid="users-search"
          allowClear
          value={keyword}
          prefix={<SearchOutlined />}
          placeholder={t('filter.keyword')}
          onChange={(e) => onKeywordChange(e.target.value)}
          onPressEnter={onSearch}
          style={{ flex: '1 1 220px', minWidth: 0, maxWidth: 360 }}
        />
        <Select
          data-testid="users-group-filter"
          aria-label={t('field.group')}
          value={group}
          options={options}
          loading={groups.isLoading}
          onChange={onGroupChange}
          showSearch
          style={{ flex: '0 1 180px', minWidth: 120 }}
        />
        <SearchButton busy={loading} onSearch={onSearch} testid="users-search-submit" />
      </Flex>
      <Flex gap={8}>
        <Button
          icon={<ReloadOutlined />}
          onClick={onRefresh}
          aria-label={t('common:action.refresh')}
          data-testid="users-refresh"
        />
        <Button type="primary" icon={<PlusOutlined />} onClick={onAdd} data-testid="users-add">
          {t('actions.add')}
        </Button>
      </Flex>
    </Flex>
  );
}

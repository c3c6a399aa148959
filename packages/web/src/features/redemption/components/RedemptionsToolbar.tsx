import {
  CopyOutlined,
  DeleteOutlined,
  DownOutlined,
  PlusOutlined,
  ReloadOutlined,
  StopOutlined,
} from '@ant-design/icons';
import { Button, Dropdown, Flex } from 'antd';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '../../../components/SearchInput';
import { SearchButton } from '../../../components/SearchButton';

export type BulkAction = 'disable' | 'byName' | 'deleteDisabled' | 'deleteInvalid';

interface Props {
  keyword: string;
  loading: boolean;
  selectedCount: number;
  onKeywordChange: (v: string) => void;
  onSearch: () => void;
  onAdd: () => void;
  onCopySelected: () => void;
  onBulk: (action: BulkAction) => void;
  onRefresh: () => void;
}

/** Search box, add, copy selected and the bulk menu (disable selected, delete by name, delete disabled). */
export function RedemptionsToolbar(p: Props) {
  const { t } = useTranslation('redemption');
  return (
    <Flex wrap gap={8} justify="space-between" style={{ marginBottom: 16 }}>
      <Flex gap={8} style={{ flex: '1 1 360px', minWidth: 0 }}>
        <SearchInput
          value={p.keyword}
          onChange={p.onKeywordChange}
          onSearch={p.onSearch}
          placeholder={t('search')}
          testid="redemptions-search"
          style={{ flex: 1, minWidth: 0 }}
        />
        <SearchButton busy={p.loading} onSearch={p.onSearch} testid="redemptions-search-submit" />
      </Flex>
      <Flex wrap gap={8}>
        <Button
          icon={<ReloadOutlined />}
          onClick={p.onRefresh}
          aria-label={t('common:action.refresh')}
          data-testid="redemptions-refresh"
        />
        <Button icon={<CopyOutlined />} onClick={p.onCopySelected} data-testid="redemptions-copy-selected">
          {p.selectedCount > 0 ? t('actions.copySelectedCount', { count: p.selectedCount }) : t('actions.copySelected')}
        </Button>
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              {
                key: 'disable',
                icon: <StopOutlined />,
                label: <span data-testid="redemptions-bulk-disable">{t('actions.disableSelected')}</span>,
              },
              {
                key: 'byName',
                icon: <DeleteOutlined />,
                danger: true,
                label: <span data-testid="redemptions-bulk-by-name">{t('actions.deleteByName')}</span>,
              },
              {
                key: 'deleteDisabled',
                icon: <DeleteOutlined />,
                danger: true,
                label: <span data-testid="redemptions-bulk-delete-disabled">{t('actions.deleteDisabled')}</span>,
              },
              {
                key: 'deleteInvalid',
                icon: <DeleteOutlined />,
                danger: true,
                label: <span data-testid="redemptions-bulk-delete-invalid">{t('actions.deleteInvalid')}</span>,
              },
            ],
            onClick: ({ key }) => p.onBulk(key as BulkAction),
          }}
        >
          <Button data-testid="redemptions-bulk">
            {t('actions.bulk')} <DownOutlined />
          </Button>
        </Dropdown>
        <Button type="primary" icon={<PlusOutlined />} onClick={p.onAdd} data-testid="redemptions-add">
          {t('actions.add')}
        </Button>
      </Flex>
    </Flex>
  );
}

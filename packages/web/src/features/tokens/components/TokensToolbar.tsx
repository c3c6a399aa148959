import { CopyOutlined, KeyOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Flex } from 'antd';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '../../../components/SearchInput';
import { SearchButton } from '../../../components/SearchButton';

interface Props {
  name: string;
  keyText: string;
  loading: boolean;
  selectedCount: number;
  onNameChange: (v: string) => void;
  onKeyChange: (v: string) => void;
  onSearch: () => void;
  onReset: () => void;
  onAdd: () => void;
  onCopySelected: () => void;
  onRefresh: () => void;
}

/** Search by name and by key, add, copy selected and refresh. */
export function TokensToolbar(p: Props) {
  const { t } = useTranslation('tokens');
  return (
    <Flex wrap gap={8} justify="space-between" style={{ marginBottom: 16 }}>
      <Flex wrap gap={8} style={{ flex: '1 1 480px', minWidth: 0 }}>
        <SearchInput
          value={p.name}
          onChange={p.onNameChange}
          onSearch={p.onSearch}
          placeholder={t('filter.name')}
          testid="tokens-search"
          style={{ flex: '1 1 180px', minWidth: 0 }}
        />
        <SearchInput
          value={p.keyText}
          onChange={p.onKeyChange}
          onSearch={p.onSearch}
          placeholder={t('filter.key')}
          testid="tokens-search-key"
          style={{ flex: '1 1 180px', minWidth: 0 }}
          icon={<KeyOutlined />}
        />
        <Flex gap={8}>
          <SearchButton busy={p.loading} onSearch={p.onSearch} testid="tokens-search-submit" />
          <Button onClick={p.onReset} data-testid="tokens-search-reset">
            {t('filter.reset')}
          </Button>
        </Flex>
      </Flex>
      <Flex wrap gap={8}>
        <Button
          icon={<ReloadOutlined />}
          onClick={p.onRefresh}
          aria-label={t('common:action.refresh')}
          data-testid="tokens-refresh"
        />
        <Button
          icon={<CopyOutlined />}
          disabled={p.selectedCount === 0}
          onClick={p.onCopySelected}
          data-testid="tokens-copy-selected"
        >
          {p.selectedCount > 0 ? t('actions.copySelectedCount', { count: p.selectedCount }) : t('actions.copySelected')}
        </Button>
        <Button type="primary" icon={<PlusOutlined />} onClick={p.onAdd} data-testid="tokens-add">
          {t('actions.add')}
        </Button>
      </Flex>
    </Flex>
  );
}

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { TokenStatus } from '@tollway/shared';
import { Alert, App } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { attempt } from '../../lib/attempt';
import { PageHeader } from '../../components/PageHeader';
import { useCopy } from '../../components/useCopy';
import { useRowSelection } from '../../lib/useRowSelection';
import { usePaging } from '../../lib/paging';
import { deleteToken, fetchTokens, revealKeys, setTokenStatus, TOKENS_KEY, type Token, type TokenQuery } from './api';
import { TokenDrawer } from './components/TokenDrawer';
import { TokensTable } from './components/TokensTable';
import { TokensToolbar } from './components/TokensToolbar';
import './tokens.css';
import { ListCard } from '../../components/ListCard';

/** API tokens of the signed-in user: search, add, batch copy, table and the editor drawer. */
export default function TokensPage() {
  const { t } = useTranslation('tokens');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const copy = useCopy();

  const { page, pageSize, setPage, pagination } = usePaging('tokens-page-size', (r) => t('pageInfo', r));
  const [nameDraft, setNameDraft] = useState('');
  const [keyDraft, setKeyDraft] = useState('');
  const [filter, setFilter] = useState({ keyword: '', token: '' });
  const [drawer, setDrawer] = useState<number | null | undefined>(undefined);
  const selection = useRowSelection<Token>();

  const query: TokenQuery = { page, pageSize, ...filter };
  const list = useQuery({
    queryKey: [...TOKENS_KEY, query],
    queryFn: () => fetchTokens(query),
    placeholderData: keepPreviousData,
  });
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: TOKENS_KEY }), [queryClient]);

  const search = () => {
    const next = { keyword: nameDraft.trim(), token: keyDraft.trim() };
    setFilter(next);
    setPage(1);
    if (next.keyword === filter.keyword && next.token === filter.token) void refresh();
  };

  const onToggle = (tok: Token) =>
    attempt(async () => {
      const next = tok.status === TokenStatus.Enabled ? TokenStatus.Disabled : TokenStatus.Enabled;
      await setTokenStatus(tok.id, next);
      void message.success(next === TokenStatus.Enabled ? t('toast.enabled') : t('toast.disabled'));
      void refresh();
    });

  const onDelete = (tok: Token) =>
    attempt(async () => {
      await deleteToken(tok.id);
      void message.success(t('toast.deleted'));
      selection.remove(tok.id);
      void refresh();
    });

  const copySelected = () => {
    if (selection.count === 0) {
      void message.warning(t('actions.selectFirst'));
      return;
    }
    void attempt(async () => {
      const keys = await revealKeys(selection.selected.map((tok) => tok.id));
      await copy(keys.join('\n'), t('toast.batchCopied', { count: keys.length }));
    });
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard>
        <Alert type="warning" showIcon title={t('warning')} style={{ marginBottom: 16 }} data-testid="tokens-warning" />
        <TokensToolbar
          name={nameDraft}
          keyText={keyDraft}
          loading={list.isFetching}
          selectedCount={selection.count}
          onNameChange={setNameDraft}
          onKeyChange={setKeyDraft}
          onSearch={search}
          onReset={() => {
            setNameDraft('');
            setKeyDraft('');
            setFilter({ keyword: '', token: '' });
            setPage(1);
          }}
          onAdd={() => setDrawer(null)}
          onCopySelected={copySelected}
          onRefresh={() => void refresh()}
        />
        <TokensTable
          items={list.data?.items ?? []}
          loading={list.isFetching}
          pagination={pagination(list.data?.total ?? 0)}
          rowSelection={selection.rowSelection}
          onToggle={onToggle}
          onEdit={(tok) => setDrawer(tok.id)}
          onDelete={onDelete}
        />
      </ListCard>
      <TokenDrawer
        target={drawer}
        onClose={() => setDrawer(undefined)}
        onSaved={() => {
          setDrawer(undefined);
          void refresh();
        }}
      />
    </>
  );
}

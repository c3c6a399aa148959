import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Card } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../lib/api';
import { PageHeader } from '../shell/PageHeader';
import { useCopy } from '../shell/useCopy';
import { usePageSize } from '../users/hooks';
import { deleteToken, fetchTokens, fullKey, setTokenStatus, TOKENS_KEY, TokenStatus, type Token, type TokenQuery } from './api';
import { TokenDrawer } from './components/TokenDrawer';
import { TokensTable } from './components/TokensTable';
import { TokensToolbar } from './components/TokensToolbar';
import './tokens.css';

/** API tokens of the signed-in user (spec 2 §2–§5): search, add, batch copy, table and the editor drawer. */
export default function TokensPage() {
  const { t } = useTranslation('tokens');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const copy = useCopy();

  const [pageSize, setPageSize] = usePageSize('tokens-page-size');
  const [page, setPage] = useState(1);
  const [nameDraft, setNameDraft] = useState('');
  const [keyDraft, setKeyDraft] = useState('');
  const [filter, setFilter] = useState({ keyword: '', token: '' });
  const [drawer, setDrawer] = useState<number | null | undefined>(undefined);
  const [selected, setSelected] = useState<Map<number, Token>>(new Map());

  const query: TokenQuery = { page, pageSize, ...filter };
  const list = useQuery({ queryKey: [...TOKENS_KEY, query], queryFn: () => fetchTokens(query), placeholderData: keepPreviousData });
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: TOKENS_KEY }), [queryClient]);

  const search = () => {
    const next = { keyword: nameDraft.trim(), token: keyDraft.trim() };
    setFilter(next);
    setPage(1);
    if (next.keyword === filter.keyword && next.token === filter.token) void refresh();
  };

  const onToggle = async (tok: Token) => {
    const next = tok.status === TokenStatus.Enabled ? TokenStatus.Disabled : TokenStatus.Enabled;
    try {
      await setTokenStatus(tok.id, next);
      void message.success(next === TokenStatus.Enabled ? t('toast.enabled') : t('toast.disabled'));
      void refresh();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    }
  };

  const onDelete = async (tok: Token) => {
    try {
      await deleteToken(tok.id);
      void message.success(t('toast.deleted'));
      setSelected((m) => {
        if (!m.has(tok.id)) return m;
        const next = new Map(m);
        next.delete(tok.id);
        return next;
      });
      void refresh();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    }
  };

  const copySelected = () => {
    if (selected.size === 0) {
      void message.warning(t('actions.selectFirst'));
      return;
    }
    const keys = [...selected.values()].map(fullKey);
    void copy(keys.join('\n'), t('toast.batchCopied', { count: keys.length }));
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <Card variant="borderless" styles={{ body: { padding: 'clamp(12px, 3vw, 24px)' } }}>
        <Alert type="warning" showIcon title={t('warning')} style={{ marginBottom: 16 }} data-testid="tokens-warning" />
        <TokensToolbar
          name={nameDraft}
          keyText={keyDraft}
          loading={list.isFetching}
          selectedCount={selected.size}
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
          page={page}
          pageSize={pageSize}
          total={list.data?.total ?? 0}
          selectedIds={[...selected.keys()]}
          onSelect={(ids, rows) => {
            const byId = new Map<number, Token>();
            for (const r of rows) if (r) byId.set(r.id, r);
            setSelected(new Map(ids.map((id) => [id, byId.get(id) ?? selected.get(id)!] as const).filter(([, v]) => v !== undefined)));
          }}
          onPageChange={(p, size) => {
            if (size !== pageSize) {
              setPageSize(size);
              setPage(1);
            } else setPage(p);
          }}
          onToggle={onToggle}
          onEdit={(tok) => setDrawer(tok.id)}
          onDelete={onDelete}
        />
      </Card>
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

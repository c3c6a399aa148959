import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, type ButtonProps } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { attempt } from '../../lib/attempt';
import { PageHeader } from '../../components/PageHeader';
import { useCopy } from '../../components/useCopy';
import { useRowSelection } from '../../lib/useRowSelection';
import { usePaging } from '../../lib/paging';
import {
  batchDisable,
  deleteDisabled,
  deleteInvalid,
  deleteRedemption,
  downloadKeys,
  fetchRedemptions,
  REDEMPTIONS_KEY,
  RedemptionStatus,
  setRedemptionStatus,
  type Redemption,
} from './api';
import { CreatedKeysModal } from './components/CreatedKeysModal';
import { DeleteByNameModal } from './components/DeleteByNameModal';
import { RedemptionDrawer } from './components/RedemptionDrawer';
import { RedemptionsTable } from './components/RedemptionsTable';
import { RedemptionsToolbar, type BulkAction } from './components/RedemptionsToolbar';
import './redemption.css';
import { ListCard } from '../../components/ListCard';

/** Redemption code management (admin): search, table, add/edit drawer, bulk actions. */
export default function RedemptionsPage() {
  const { t } = useTranslation('redemption');
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const copy = useCopy();

  const { page, pageSize, setPage, pagination } = usePaging('redemptions-page-size', (r) => t('pageInfo', r));
  const [draft, setDraft] = useState('');
  const [keyword, setKeyword] = useState('');
  const [drawer, setDrawer] = useState<number | null | undefined>(undefined);
  const [byNameOpen, setByNameOpen] = useState(false);
  const [created, setCreated] = useState<{ keys: string[]; name: string } | null>(null);
  const selection = useRowSelection<Redemption>();

  const query = { page, pageSize, keyword };
  const list = useQuery({
    queryKey: [...REDEMPTIONS_KEY, query],
    queryFn: () => fetchRedemptions(query),
    placeholderData: keepPreviousData,
  });
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: REDEMPTIONS_KEY }), [queryClient]);

  const search = () => {
    const next = draft.trim();
    setKeyword(next);
    setPage(1);
    if (next === keyword) void refresh();
  };

  const onToggle = (r: Redemption) =>
    attempt(async () => {
      const next = r.status === RedemptionStatus.Unused ? RedemptionStatus.Disabled : RedemptionStatus.Unused;
      await setRedemptionStatus(r.id, next);
      void message.success(next === RedemptionStatus.Unused ? t('toast.enabled') : t('toast.disabled'));
      void refresh();
    });

  const onDelete = (r: Redemption) =>
    attempt(async () => {
      await deleteRedemption(r.id);
      void message.success(t('toast.deleted'));
      selection.remove(r.id);
      void refresh();
    });

  const requireSelection = (): Redemption[] | undefined => {
    if (selection.count === 0) {
      void message.warning(t('actions.selectFirst'));
      return undefined;
    }
    return selection.selected;
  };

  const onBulk = (action: BulkAction) => {
    if (action === 'byName') return setByNameOpen(true);
    if (action === 'disable') {
      const rows = requireSelection();
      if (!rows) return;
      void attempt(async () => {
        const n = await batchDisable(rows.map((r) => r.id));
        void message.success(t('toast.batchDisabled', { count: n }));
        selection.clear();
        void refresh();
      });
      return;
    }
    // Delete every disabled code, or every code nobody can redeem any more (used, disabled, expired, used up).
    const invalid = action === 'deleteInvalid';
    modal.confirm({
      title: t(invalid ? 'actions.deleteInvalidTitle' : 'actions.deleteDisabledTitle'),
      content: t(invalid ? 'actions.deleteInvalidConfirm' : 'actions.deleteDisabledConfirm'),
      okButtonProps: {
        danger: true,
        'data-testid': invalid ? 'redemptions-delete-invalid-confirm' : 'redemptions-delete-disabled-confirm',
      } as ButtonProps,
      okText: t('actions.delete'),
      cancelText: t('common:action.cancel'),
      onOk: () =>
        attempt(async () => {
          const n = await (invalid ? deleteInvalid() : deleteDisabled());
          void message.success(t('toast.deletedCount', { count: n }));
          selection.clear();
          void refresh();
        }),
    });
  };

  const copySelected = () => {
    const rows = requireSelection();
    if (rows) void copy(rows.map((r) => r.key).join('\n'), t('toast.batchCopied', { count: rows.length }));
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard>
        <RedemptionsToolbar
          keyword={draft}
          loading={list.isFetching}
          selectedCount={selection.count}
          onKeywordChange={setDraft}
          onSearch={search}
          onAdd={() => setDrawer(null)}
          onCopySelected={copySelected}
          onBulk={onBulk}
          onRefresh={() => void refresh()}
        />
        <RedemptionsTable
          items={list.data?.items ?? []}
          loading={list.isFetching}
          pagination={pagination(list.data?.total ?? 0)}
          rowSelection={selection.rowSelection}
          onToggle={onToggle}
          onEdit={(r) => setDrawer(r.id)}
          onDelete={onDelete}
        />
      </ListCard>
      <RedemptionDrawer
        target={drawer}
        onClose={() => setDrawer(undefined)}
        onSaved={(keys, name) => {
          setDrawer(undefined);
          if (keys && keys.length > 0) {
            downloadKeys(keys, name ?? '');
            setCreated({ keys, name: name ?? '' });
          }
          void refresh();
        }}
      />
      <CreatedKeysModal created={created} onClose={() => setCreated(null)} />
      <DeleteByNameModal
        open={byNameOpen}
        onClose={() => setByNameOpen(false)}
        onDeleted={() => {
          setByNameOpen(false);
          selection.clear();
          void refresh();
        }}
      />
    </>
  );
}

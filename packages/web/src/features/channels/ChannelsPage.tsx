import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { CHANNELS_KEY, fetchChannels, type Channel, type ChannelFilter, type ChannelQuery, type TagRow } from './api';
import { BatchTagModal } from './components/BatchTagModal';
import { BulkMenu } from './components/BulkMenu';
import { ChannelsTable } from './components/ChannelsTable';
import { ChannelsToolbar } from './components/ChannelsToolbar';
import { TagEditorDrawer } from './components/TagEditorDrawer';
import { TestModelDialog } from './components/TestModelDialog';
import { ChannelEditorDrawer, type EditorTarget } from './editor/ChannelEditorDrawer';
import { COLUMN_KEYS, STORAGE, useColumnVisibility, useStoredFlag } from './model/storage';
import { useChannelActions } from './model/useChannelActions';
import './channels.css';
import { usePageSize } from '../../lib/paging';
import { ListCard } from '../../components/ListCard';
import { ColumnSettings } from '../../components/ColumnSettings';

const NO_FILTER: ChannelFilter = { keyword: '', group: '', model: '' };

/**
 * Channel management. Mounted at /admin/channels, and at /channel/edit/:id and /channel/add,
 * where it opens the editor on load.
 */
export default function ChannelsPage() {
  const { t } = useTranslation('channels');
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { id: routeId } = useParams<{ id?: string }>();
  const onEditorRoute = pathname.startsWith('/channel/');
  const actions = useChannelActions();

  const [pageSize, setPageSize] = usePageSize(STORAGE.pageSize);
  const [idSort, setIdSort] = useStoredFlag(STORAGE.idSort);
  const [bulk, setBulk] = useStoredFlag(STORAGE.bulk);
  const [tagMode, setTagMode] = useStoredFlag(STORAGE.tagMode);
  const [columns, setColumns] = useColumnVisibility();
  const [page, setPage] = useState(1);
  const [draft, setDraft] = useState<ChannelFilter>(NO_FILTER);
  const [filter, setFilter] = useState<ChannelFilter>(NO_FILTER);
  const [selected, setSelected] = useState<number[]>([]);
  const [editor, setEditor] = useState<EditorTarget>(null);
  const [tagRow, setTagRow] = useState<TagRow | null>(null);
  const [testing, setTesting] = useState<Channel | null>(null);
  const [batchTagOpen, setBatchTagOpen] = useState(false);

  useEffect(() => {
    if (pathname.startsWith('/channel/add')) setEditor('new');
    else if (pathname.startsWith('/channel/edit/')) {
      const id = Number(routeId);
      if (Number.isInteger(id) && id > 0) setEditor(id);
    }
  }, [pathname, routeId]);

  const query: ChannelQuery = { page, pageSize, idSort, tagMode, ...filter };
  const list = useQuery({
    queryKey: [...CHANNELS_KEY, query],
    queryFn: () => fetchChannels(query),
    placeholderData: keepPreviousData,
  });
  const items = list.data?.items ?? [];

  // A page emptied by deletions falls back to the last page that has rows.
  useEffect(() => {
    if (list.data && list.data.items.length === 0 && page > 1 && list.data.total > 0)
      setPage(Math.max(1, Math.ceil(list.data.total / pageSize)));
  }, [list.data, page, pageSize]);

  const apply = (next: ChannelFilter) => {
    const trimmed = { keyword: next.keyword.trim(), group: next.group, model: next.model.trim() };
    setDraft(next);
    setFilter(trimmed);
    setPage(1);
    if (JSON.stringify(trimmed) === JSON.stringify(filter)) void actions.refresh();
  };

  const closeEditor = () => {
    setEditor(null);
    if (onEditorRoute) navigate('/admin/channels', { replace: true });
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard className="tw-ch-card">
        <ChannelsToolbar
          draft={draft}
          loading={list.isFetching}
          idSort={idSort}
          bulk={bulk}
          tagMode={tagMode}
          onDraftChange={(d) => {
            setDraft(d);
            if ((d.keyword === '' && filter.keyword !== '') || (d.model === '' && filter.model !== '')) apply(d);
          }}
          onSearch={(d) => apply(d ?? draft)}
          onIdSort={(v) => {
            setIdSort(v);
            setPage(1);
          }}
          onBulk={(v) => {
            setBulk(v);
            if (!v) setSelected([]);
          }}
          onTagMode={(v) => {
            setTagMode(v);
            setPage(1);
            setSelected([]);
          }}
          onAdd={() => setEditor('new')}
          onRefresh={() => void actions.refresh()}
          columnSettings={
            <ColumnSettings
              iconOnly
              columns={COLUMN_KEYS.map((key) => ({ key, title: t(`col.${key}`) }))}
              visible={columns}
              onChange={setColumns}
              testId="channels-columns"
            />
          }
          bulkMenu={
            <BulkMenu
              selected={selected}
              onBatchTag={() => setBatchTagOpen(true)}
              onDone={(clear) => {
                if (clear) setSelected([]);
                void actions.refresh();
              }}
            />
          }
        />
        <ChannelsTable
          items={items}
          loading={list.isFetching}
          page={page}
          pageSize={pageSize}
          total={list.data?.total ?? 0}
          visible={columns}
          bulk={bulk}
          selected={selected}
          onSelect={setSelected}
          onPageChange={(p, size) => {
            if (size !== pageSize) {
              setPageSize(size);
              setPage(1);
            } else setPage(p);
          }}
          actions={actions}
          onEdit={(c) => setEditor(c.id)}
          onPickTestModel={setTesting}
          onEditTag={setTagRow}
        />
      </ListCard>
      <ChannelEditorDrawer
        target={editor}
        onClose={closeEditor}
        onSaved={() => {
          closeEditor();
          void actions.refresh();
        }}
      />
      <TagEditorDrawer
        row={tagRow}
        onClose={() => setTagRow(null)}
        onSaved={() => {
          setTagRow(null);
          void actions.refresh();
        }}
      />
      <TestModelDialog channel={testing} actions={actions} onClose={() => setTesting(null)} />
      <BatchTagModal
        open={batchTagOpen}
        ids={selected}
        onClose={() => setBatchTagOpen(false)}
        onDone={() => {
          setBatchTagOpen(false);
          setSelected([]);
          void actions.refresh();
        }}
      />
    </>
  );
}

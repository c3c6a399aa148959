import {
  AppstoreAddOutlined,
  CloudDownloadOutlined,
  PlusOutlined,
  SaveOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { App, Badge, Button, Flex, Segmented, Table, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../../lib/useIsMobile';
import { useOptions } from '../model/useOptions';
import { useSaveOptions } from '../model/useSaveOptions';
import { AddModelModal } from './AddModelModal';
import { BatchSetModal } from './BatchSetModal';
import { ModelSearchInput, useModelSearch } from './ModelSearch';
import {
  applyRows,
  batchRow,
  canonicalFromMaps,
  changedMaps,
  convertRows,
  mapsFromOptions,
  rowsFromMaps,
  type BatchValues,
  type PricingMaps,
  type RatioRow,
  type Unit,
} from './model';
import { ratioColumns, type RowActions } from './ratioColumns';
import { fillRows, rowValues, type PresetChange } from './preset';
import { PresetRatiosModal } from './PresetRatiosModal';
import { rowTestId } from '../../../lib/table';

/** Visual page size. */
const PAGE_SIZE = 10;

/**
 * The visual ratio editor: every model in ModelPrice, ModelRatio, CompletionRatio or CacheRatio as
 * an editable row; per-token values as ratios or as dollars per 1M tokens; add, delete, batch set; Save writes
 * back only the maps that changed.
 */
export function VisualRatioEditor({ onPending }: { onPending?: (count: number) => void }) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const options = useOptions().data ?? {};
  const [orig, setOrig] = useState<PricingMaps>(() => mapsFromOptions(options));
  const [unit, setUnit] = useState<Unit>('ratio');
  const [rows, setRows] = useState<RatioRow[]>(() => rowsFromMaps(orig, 'ratio'));
  const [deleted, setDeleted] = useState<string[]>([]);
  const { search, setSearch, query, matches, page, setPage } = useModelSearch();
  const [selected, setSelected] = useState<string[]>([]);
  const [adding, setAdding] = useState(false);
  const [batching, setBatching] = useState(false);
  const [presetOpen, setPresetOpen] = useState(false);
  const { save, saving } = useSaveOptions();
  const narrow = useIsMobile();

  const edit = (name: string, patch: Partial<RatioRow>) =>
    setRows((rs) => rs.map((r) => (r.name === name ? { ...r, ...patch, dirty: true } : r)));
  const actions: RowActions = {
    setCell: (name, field, text) => edit(name, { [field]: text }),
    setMode: (name, mode) => edit(name, { mode }),
    remove: (name) => {
      const row = rows.find((r) => r.name === name);
      setRows((rs) => rs.filter((r) => r.name !== name));
      if (row && !row.isNew) setDeleted((d) => [...d, name]);
      setSelected((s) => s.filter((n) => n !== name));
    },
  };

  const columns = ratioColumns(unit, t, actions, narrow);
  const shown = query ? rows.filter((r) => matches(r.name)) : rows;
  const pending = rows.filter((r) => r.dirty).length + deleted.length;
  useEffect(() => {
    onPending?.(pending);
  }, [pending, onPending]);

  const switchUnit = (to: Unit) => {
    const next = convertRows(rows, orig, unit, to);
    if (!next) return void message.error(t('toast.checkInput'));
    setRows(next);
    setUnit(to);
  };

  const openBatch = () => {
    if (selected.length === 0) return void message.warning(t('batch.chooseFirst'));
    setBatching(true);
  };
  const applyBatch = (v: BatchValues) => {
    const set = new Set(selected);
    setRows((rs) => rs.map((r) => (set.has(r.name) ? batchRow(r, v, unit) : r)));
    setBatching(false);
    void message.success(t('batch.staged', { count: set.size }));
  };

  /** A model's values in the editor now (its saved ones while a cell is wrong); undefined without a row. */
  const current = useCallback(
    (name: string) => {
      const row = rows.find((r) => r.name === name);
      return row ? (rowValues(row, unit) ?? canonicalFromMaps(orig, name)) : undefined;
    },
    [rows, unit, orig],
  );
  const fillPreset = (changes: PresetChange[]) => {
    const names = new Set(changes.map((c) => c.name));
    setRows((rs) => fillRows(rs, changes, unit));
    setDeleted((d) => d.filter((n) => !names.has(n)));
    setPresetOpen(false);
    void message.success(t('preset.staged', { count: changes.length }));
  };

  const discard = () => {
    setRows(rowsFromMaps(orig, unit));
    setDeleted([]);
    setSelected([]);
  };

  const saveAll = async () => {
    const next = applyRows(orig, rows, deleted, unit);
    if (!next) return void message.error(t('toast.checkInput'));
    const changes = changedMaps(orig, next);
    const saved = await save(changes);
    if (saved.length === 0) return;
    const merged = { ...orig };
    for (const c of saved) merged[c.key as keyof PricingMaps] = next[c.key as keyof PricingMaps];
    setOrig(merged);
    if (saved.length === changes.length) {
      setRows(rowsFromMaps(next, unit));
      setDeleted([]);
    }
  };

  return (
    <div data-testid="ratio-visual">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 12 }}>
        {t('ratio.visualDesc')}
      </Typography.Paragraph>
      <Flex wrap gap={8} justify="space-between" align="center" style={{ marginBottom: 12 }}>
        <Flex wrap gap={8} align="center">
          <ModelSearchInput value={search} onChange={setSearch} testid="ratio-search" />
          <Segmented
            value={unit}
            onChange={(u) => switchUnit(u as Unit)}
            options={[
              { value: 'ratio', label: t('ratio.unit.ratio') },
              { value: 'price', label: t('ratio.unit.price') },
            ]}
            data-testid="ratio-unit"
          />
        </Flex>
        <Flex wrap gap={8}>
          <Button icon={<CloudDownloadOutlined />} onClick={() => setPresetOpen(true)} data-testid="ratio-preset">
            {t('preset.open')}
          </Button>
          <Button icon={<PlusOutlined />} onClick={() => setAdding(true)} data-testid="ratio-add">
            {t('ratio.add')}
          </Button>
          <Button icon={<AppstoreAddOutlined />} onClick={openBatch} data-testid="ratio-batch">
            {t('ratio.batch')}
            {selected.length > 0 ? ` (${selected.length})` : ''}
          </Button>
          <Button icon={<UndoOutlined />} disabled={pending === 0} onClick={discard} data-testid="ratio-discard">
            {t('ratio.discard')}
          </Button>
          <Badge count={pending} size="small" offset={[-4, 2]}>
            <Button
              type="primary"
              icon={<SaveOutlined />}
              loading={saving}
              onClick={() => void saveAll()}
              data-testid="ratio-save"
            >
              {t('ratio.save')}
            </Button>
          </Badge>
        </Flex>
      </Flex>
      <Table<RatioRow>
        rowKey="name"
        size="small"
        columns={columns}
        dataSource={shown}
        scroll={{ x: narrow ? 960 : 1060 }}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys as string[]),
          preserveSelectedRowKeys: true,
          columnWidth: 40,
          fixed: narrow,
        }}
        onRow={rowTestId((r) => `ratio-row-${r.name}`)}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          onChange: setPage,
          showSizeChanger: false,
          size: 'small',
          showTotal: (n) => t('ratio.total', { count: n }),
        }}
        locale={{ emptyText: t('ratio.empty') }}
      />
      <AddModelModal
        open={adding}
        unit={unit}
        exists={(n) => rows.some((r) => r.name === n)}
        onCancel={() => setAdding(false)}
        onAdd={(row) => {
          setRows((rs) => [row, ...rs]);
          setDeleted((d) => d.filter((n) => n !== row.name));
          setSearch('');
          setAdding(false);
        }}
      />
      <PresetRatiosModal
        open={presetOpen}
        current={current}
        onCancel={() => setPresetOpen(false)}
        onFill={fillPreset}
      />
      <BatchSetModal open={batching} models={selected} onCancel={() => setBatching(false)} onApply={applyBatch} />
    </div>
  );
}

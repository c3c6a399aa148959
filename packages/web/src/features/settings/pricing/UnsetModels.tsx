import { CloudDownloadOutlined, DollarOutlined, PercentageOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Flex, Result, Space, Table, Typography, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure, apiGet } from '../../../lib/api';
import { useOptions } from '../model/useOptions';
import { useSaveOptions } from '../model/useSaveOptions';
import { BatchSetModal } from './BatchSetModal';
import { ModelSearchInput, useModelSearch } from './ModelSearch';
import { batchMaps, changedMaps, mapsFromOptions, type BatchType, type BatchValues, type PricingMaps } from './model';
import type { PresetRatios } from './preset';
import { rowTestId } from '../../../lib/table';

/** Page sizes of the unset-models table. */
const PAGE_SIZES = [10, 20, 50, 100];
/** Models named in the fill-from-official confirm before "and N more". */
const CONFIRM_NAMES = 10;

/** The maps with the official preset's ratios for `models` (those it names); the others stay unset. */
function officialMaps(orig: PricingMaps, models: string[], preset: PresetRatios): PricingMaps {
  const next: PricingMaps = {
    ...orig,
    ModelRatio: { ...orig.ModelRatio },
    CompletionRatio: { ...orig.CompletionRatio },
  };
  for (const m of models) {
    next.ModelRatio[m] = preset.model_ratio[m]!;
    const completion = preset.completion_ratio[m];
    if (completion !== undefined) next.CompletionRatio[m] = completion;
  }
  return next;
}

interface Row {
  name: string;
}

/**
 * Models some enabled channel routes (GET /api/channel/models_enabled) that have neither a model ratio nor a fixed
 * price: such calls are refused unless self-use mode is on. Set a ratio or a price per row or for the selection;
 * it is saved at once and the model leaves the list.
 */
export function UnsetModels() {
  const { t } = useTranslation('settings');
  const { message, modal } = App.useApp();
  const [filling, setFilling] = useState(false);
  const options = useOptions().data ?? {};
  const enabled = useQuery({
    queryKey: ['settings', 'models_enabled'],
    queryFn: () => apiGet<string[]>('/api/channel/models_enabled', { silent: true }),
    refetchOnMount: 'always',
  });
  const { search, setSearch, query, matches, page, setPage } = useModelSearch();
  const [pageSize, setPageSize] = useState(PAGE_SIZES[0]!);
  const [selected, setSelected] = useState<string[]>([]);
  const [target, setTarget] = useState<{ models: string[]; type: BatchType }>({ models: [], type: 'ratio' });
  const [open, setOpen] = useState(false);
  const setFor = (models: string[], type: BatchType) => {
    setTarget({ models, type });
    setOpen(true);
  };
  const { save } = useSaveOptions();

  if (enabled.isError)
    return (
      <Result
        status="warning"
        title={t('unset.loadFailed')}
        extra={
          <Button icon={<ReloadOutlined />} onClick={() => void enabled.refetch()} data-testid="unset-retry">
            {t('common:action.refresh')}
          </Button>
        }
      />
    );

  const maps = mapsFromOptions(options);
  const unset = [...new Set(enabled.data ?? [])]
    .filter((m) => !(m in maps.ModelRatio) && !(m in maps.ModelPrice))
    .sort((a, b) => a.localeCompare(b));
  const rows: Row[] = unset.filter(matches).map((name) => ({ name }));
  const selection = selected.filter((m) => unset.includes(m));

  const apply = async (v: BatchValues) => {
    const saved = await save(changedMaps(maps, batchMaps(maps, target.models, v)));
    if (saved.length === 0) return;
    setSelected((s) => s.filter((m) => !target.models.includes(m)));
    setOpen(false);
  };

  /** Fills the unset models the official preset names (GET /api/ratio_preset/official), saved after a confirm. */
  const fillOfficial = async () => {
    let preset: PresetRatios;
    setFilling(true);
    try {
      preset = await apiGet<PresetRatios>('/api/ratio_preset/official', { silent: true });
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      if (err.status !== 401) void message.error(t('preset.officialFailed'));
      return;
    } finally {
      setFilling(false);
    }
    const models = unset.filter((m) => preset.model_ratio[m] !== undefined);
    if (models.length === 0) return void message.info(t('preset.officialNone'));
    const more = models.length - CONFIRM_NAMES;
    modal.confirm({
      title: t('preset.officialTitle', { count: models.length }),
      content: (
        <div data-testid="unset-official-confirm">
          <Typography.Paragraph>
            {t('preset.officialBody', { count: models.length, total: unset.length })}
          </Typography.Paragraph>
          <Typography.Text code>{models.slice(0, CONFIRM_NAMES).join(', ')}</Typography.Text>
          {more > 0 && <Typography.Text type="secondary"> {t('preset.andMore', { count: more })}</Typography.Text>}
        </div>
      ),
      okText: t('preset.officialOk'),
      okButtonProps: { 'data-testid': 'unset-official-ok' } as ButtonProps,
      cancelText: t('common:action.cancel'),
      onOk: async () => {
        await save(changedMaps(maps, officialMaps(maps, models, preset)));
      },
    });
  };

  const batch = (type: BatchType) => {
    if (selection.length === 0) return void message.warning(t('batch.chooseFirst'));
    setFor(selection, type);
  };

  return (
    <div data-testid="ratio-unset">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 12 }}>
        {t('unset.desc')}
      </Typography.Paragraph>
      <Flex wrap gap={8} justify="space-between" style={{ marginBottom: 12 }}>
        <ModelSearchInput value={search} onChange={setSearch} testid="unset-search" />
        <Flex wrap gap={8}>
          <Button
            icon={<CloudDownloadOutlined />}
            loading={filling}
            disabled={unset.length === 0}
            onClick={() => void fillOfficial()}
            data-testid="unset-fill-official"
          >
            {t('preset.official')}
          </Button>
          <Button icon={<PercentageOutlined />} onClick={() => batch('ratio')} data-testid="unset-batch-ratio">
            {t('unset.batchRatio')}
            {selection.length > 0 ? ` (${selection.length})` : ''}
          </Button>
          <Button icon={<DollarOutlined />} onClick={() => batch('price')} data-testid="unset-batch-price">
            {t('unset.batchPrice')}
            {selection.length > 0 ? ` (${selection.length})` : ''}
          </Button>
          <Button
            icon={<ReloadOutlined />}
            loading={enabled.isFetching}
            onClick={() => void enabled.refetch()}
            aria-label={t('common:action.refresh')}
            data-testid="unset-refresh"
          />
        </Flex>
      </Flex>
      <Table<Row>
        rowKey="name"
        size="small"
        loading={enabled.isLoading}
        dataSource={rows}
        rowSelection={{
          selectedRowKeys: selection,
          onChange: (keys) => setSelected(keys as string[]),
          preserveSelectedRowKeys: true,
          columnWidth: 40,
        }}
        onRow={rowTestId((r) => `unset-row-${r.name}`)}
        columns={[
          {
            key: 'name',
            title: t('ratio.col.model'),
            dataIndex: 'name',
            render: (n: string) => <Typography.Text copyable={{ text: n }}>{n}</Typography.Text>,
          },
          {
            key: 'actions',
            title: t('unset.quickSet'),
            width: 230,
            render: (_, r) => (
              <Space size={4} wrap>
                <Button size="small" onClick={() => setFor([r.name], 'ratio')} data-testid={`unset-ratio-${r.name}`}>
                  {t('unset.setRatio')}
                </Button>
                <Button size="small" onClick={() => setFor([r.name], 'price')} data-testid={`unset-price-${r.name}`}>
                  {t('unset.setPrice')}
                </Button>
              </Space>
            ),
          },
        ]}
        pagination={{
          current: page,
          pageSize,
          pageSizeOptions: PAGE_SIZES,
          showSizeChanger: true,
          size: 'small',
          onChange: (p, s) => {
            setPage(s !== pageSize ? 1 : p);
            setPageSize(s);
          },
          showTotal: (n) => t('ratio.total', { count: n }),
        }}
        locale={{
          emptyText: (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t(query ? 'ratio.empty' : 'unset.none')} />
          ),
        }}
      />
      <BatchSetModal
        open={open}
        models={target.models}
        initialType={target.type}
        onCancel={() => setOpen(false)}
        onApply={apply}
      />
    </div>
  );
}

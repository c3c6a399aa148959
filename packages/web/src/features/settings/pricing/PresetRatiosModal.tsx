import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Flex, Modal, Select, Table, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../../lib/api';
import { rowTestId } from '../../../lib/table';
import { fmt, type Canonical } from './model';
import {
  PRESET_SOURCES,
  presetDiff,
  toFill,
  type FillMode,
  type PresetChange,
  type PresetChangeKind,
  type PresetRatios,
  type PresetSource,
} from './preset';

/** The server keeps a fetched preset 5 minutes; the console as long. */
const PRESET_STALE_MS = 5 * 60_000;
const PREVIEW_PAGE_SIZE = 8;
const KIND_COLOR: Record<PresetChangeKind, string> = {
  added: 'green',
  changed: 'orange',
  unchanged: 'default',
  priced: 'blue',
};

/** "1.5 → 2", "— → 2" or "2" when the value stays. */
function Arrow({ from, to }: { from: number | null; to: number | null }) {
  if (from === to) return <Typography.Text type="secondary">{fmt(to) || '—'}</Typography.Text>;
  return (
    <span>
      <Typography.Text delete type="secondary">
        {fmt(from) || '—'}
      </Typography.Text>
      {' → '}
      <Typography.Text strong>{fmt(to) || '—'}</Typography.Text>
    </span>
  );
}

/**
 * Preset ratio sources: pick a source, preview how its model and completion ratios differ from the editor
 * (added, changed, unchanged, kept for a fixed price) and fill every model or only the missing ones into the
 * editor. Nothing is saved here: the editor's Save writes the options.
 */
export function PresetRatiosModal({
  open,
  current,
  onCancel,
  onFill,
}: {
  open: boolean;
  current: (name: string) => Canonical | undefined;
  onCancel: () => void;
  onFill: (changes: PresetChange[], mode: FillMode) => void;
}) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [source, setSource] = useState<PresetSource>('flexible');
  const preset = useQuery({
    queryKey: ['settings', 'ratio_preset', source],
    queryFn: () => apiGet<PresetRatios>(`/api/ratio_preset/${source}`, { silent: true }),
    enabled: open,
    retry: false,
    staleTime: PRESET_STALE_MS,
  });
  useEffect(() => {
    if (preset.isError) void message.error(t('preset.fetchFailed'));
  }, [preset.isError, preset.errorUpdatedAt, message, t]);
  const diff = useMemo(() => (preset.data ? presetDiff(preset.data, current) : undefined), [preset.data, current]);
  const rows = diff?.changes.filter((c) => c.kind === 'added' || c.kind === 'changed') ?? [];
  const fill = (mode: FillMode) => diff && onFill(toFill(diff, mode), mode);
  const missing = diff?.count.added ?? 0;
  const all = missing + (diff?.count.changed ?? 0);

  return (
    <Modal
      open={open}
      title={t('preset.title')}
      width={760}
      onCancel={onCancel}
      destroyOnHidden
      footer={
        <Flex wrap gap={8} justify="end">
          <Button onClick={onCancel}>{t('common:action.cancel')}</Button>
          <Button disabled={!diff || missing === 0} onClick={() => fill('missing')} data-testid="preset-fill-missing">
            {t('preset.fillMissing', { count: missing })}
          </Button>
          <Button
            type="primary"
            disabled={!diff || all === 0}
            onClick={() => fill('all')}
            data-testid="preset-fill-all"
          >
            {t('preset.fillAll', { count: all })}
          </Button>
        </Flex>
      }
    >
      <div data-testid="preset-modal">
        <Flex wrap gap={8} align="center" style={{ marginBottom: 12 }}>
          <Typography.Text strong>{t('preset.source')}</Typography.Text>
          <Select<PresetSource>
            value={source}
            onChange={setSource}
            style={{ minWidth: 240 }}
            options={PRESET_SOURCES.map((s) => ({ value: s, label: t(`preset.sources.${s}`) }))}
            data-testid="preset-source"
          />
          <Button loading={preset.isFetching} onClick={() => void preset.refetch()} data-testid="preset-refresh">
            {t('common:action.refresh')}
          </Button>
        </Flex>
        {preset.isError && (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 12 }}
            message={t('preset.fetchFailed')}
            description={preset.error.message}
            data-testid="preset-error"
          />
        )}
        {diff && (
          <>
            <Flex wrap gap={8} style={{ marginBottom: 12 }} data-testid="preset-summary">
              {(['added', 'changed', 'unchanged', 'priced'] as const).map((k) => (
                <Tag key={k} color={KIND_COLOR[k]} data-testid={`preset-count-${k}`}>
                  {t('preset.count', { label: t(`preset.kind.${k}`), count: diff.count[k] })}
                </Tag>
              ))}
            </Flex>
            <Table<PresetChange>
              rowKey="name"
              size="small"
              dataSource={rows}
              onRow={rowTestId((r) => `preset-row-${r.name}`)}
              pagination={{
                pageSize: PREVIEW_PAGE_SIZE,
                size: 'small',
                showSizeChanger: false,
                hideOnSinglePage: true,
              }}
              locale={{ emptyText: t('preset.nothing') }}
              columns={[
                { key: 'name', title: t('ratio.col.model'), dataIndex: 'name', ellipsis: true },
                {
                  key: 'kind',
                  title: '',
                  width: 90,
                  render: (_, c) => <Tag color={KIND_COLOR[c.kind]}>{t(`preset.kind.${c.kind}`)}</Tag>,
                },
                {
                  key: 'ratio',
                  title: t('ratio.col.ratio.input'),
                  width: 170,
                  render: (_, c) => <Arrow from={c.old.ratio} to={c.next.ratio} />,
                },
                {
                  key: 'completion',
                  title: t('ratio.col.ratio.output'),
                  width: 170,
                  render: (_, c) => <Arrow from={c.old.completion} to={c.next.completion} />,
                },
              ]}
            />
          </>
        )}
        <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
          {t('preset.note')}
        </Typography.Paragraph>
      </div>
    </Modal>
  );
}

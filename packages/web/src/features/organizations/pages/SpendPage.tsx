import { DownloadOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { SPEND_DIMENSIONS, type SpendDimension, type SpendQuery, type SpendRow } from '@tollway/shared';
import { Alert, App, Button, Card, DatePicker, Empty, Radio, Select, Table, type TableColumnsType } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../../components/PageHeader';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { useQuotaFormat } from '../../../lib/self';
import { useIsMobile } from '../../../lib/useIsMobile';
import { downloadSpendCsv, fetchSpend, orgKey, spendExportUrl, type SpendFilter } from '../api';
import { SpendChart } from '../components/SpendChart';
import { SpendFilters } from '../components/SpendFilters';
import { useOrgView } from '../context';

const DEFAULT_DAYS = 7;
type Range = [Dayjs, Dayjs];

/**
 * /app/org/:id/spend: a range, filters (team, member, token, model, tag) and a breakdown; a chart and a table of the
 * rows; the same query as a CSV download.
 */
export default function SpendPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const mobile = useIsMobile();
  const [range, setRange] = useState<Range>(() => [
    dayjs()
      .subtract(DEFAULT_DAYS - 1, 'day')
      .startOf('day'),
    dayjs().endOf('day'),
  ]);
  const [groupBy, setGroupBy] = useState<SpendDimension>('member');
  const [kind, setKind] = useState<'bar' | 'line'>('bar');
  const [exporting, setExporting] = useState(false);
  const [filter, setFilter] = useState<SpendFilter>({});
  // The chart, the table and the export read this one query.
  const query: SpendQuery = {
    start_timestamp: range[0].unix(),
    end_timestamp: range[1].unix(),
    group_by: groupBy,
    ...filter,
  };
  const report = useQuery({
    queryKey: orgKey(org.id, 'spend', query),
    queryFn: () => fetchSpend(org.id, query),
    placeholderData: keepPreviousData,
  });
  const rows = report.data?.rows ?? [];
  const reseller = org.reseller;

  const exportCsv = async () => {
    setExporting(true);
    try {
      const ok = await downloadSpendCsv(spendExportUrl(org.id, query), `org-${org.id}-spend-${groupBy}.csv`);
      if (ok) void message.success(t('spend.exported'));
      else void message.error(t('spend.exportFailed'));
    } catch {
      void message.error(t('spend.exportFailed'));
    } finally {
      setExporting(false);
    }
  };

  const columns: TableColumnsType<SpendRow> = [
    {
      title: t(`spend.dims.${groupBy}`),
      key: 'label',
      width: 180,
      render: (_, r) => r.label || r.key,
    },
    { title: t('spend.quota'), key: 'quota', width: 120, render: (_, r) => fmt(r.quota) },
    ...(reseller
      ? [
          {
            title: t('spend.billed'),
            key: 'billed',
            width: 140,
            render: (_: unknown, r: SpendRow) => fmt(r.billed_quota),
          },
        ]
      : []),
    { title: t('spend.requests'), dataIndex: 'requests', key: 'requests', width: 100 },
    { title: t('spend.prompt'), dataIndex: 'prompt_tokens', key: 'prompt', width: 120 },
    { title: t('spend.completion'), dataIndex: 'completion_tokens', key: 'completion', width: 120 },
  ];

  return (
    <>
      <PageHeader
        title={t('page.spend')}
        subtitle={t('spend.subtitle')}
        extra={
          <Button
            icon={<DownloadOutlined />}
            loading={exporting}
            onClick={() => void exportCsv()}
            data-testid="spend-export"
          >
            {t('spend.export')}
          </Button>
        }
      />
      {!can('spend.all') && <Alert type="info" showIcon title={t('spend.ownOnly')} style={{ marginBottom: 16 }} />}
      <Card variant="borderless">
        <div className="tw-org-toolbar">
          <DatePicker.RangePicker
            value={range}
            allowClear={false}
            aria-label={t('spend.range')}
            onChange={(v) => v && v[0] && v[1] && setRange([v[0].startOf('day'), v[1].endOf('day')])}
            data-testid="spend-range"
          />
          <Select
            aria-label={t('spend.groupBy')}
            value={groupBy}
            onChange={setGroupBy}
            style={{ width: 140 }}
            options={SPEND_DIMENSIONS.map((d) => ({ value: d, label: t(`spend.dims.${d}`) }))}
            data-testid="spend-group-by"
          />
          <Radio.Group
            value={kind}
            onChange={(e) => setKind(e.target.value as 'bar' | 'line')}
            optionType="button"
            aria-label={t('spend.chart')}
            options={[
              { value: 'bar', label: t('spend.bar') },
              { value: 'line', label: t('spend.line') },
            ]}
            data-testid="spend-kind"
          />
        </div>
        <div className="tw-org-toolbar" data-testid="spend-filters">
          <SpendFilters value={filter} onChange={setFilter} />
        </div>
        {rows.length ? (
          <SpendChart rows={rows} kind={kind} value={fmt} />
        ) : (
          <Empty description={t('spend.empty')} data-testid="spend-empty" />
        )}
        <Table<SpendRow>
          rowKey="key"
          size="small"
          style={{ marginTop: 16 }}
          columns={cardColumns(columns, mobile)}
          dataSource={rows}
          loading={report.isFetching}
          {...cardLayout(mobile, 780)}
          pagination={{ pageSize: 20, hideOnSinglePage: true }}
          onRow={(r) => ({ 'data-testid': `spend-row-${r.key}` }) as object}
          summary={() =>
            report.data && rows.length ? (
              <Table.Summary.Row data-testid="spend-total">
                <Table.Summary.Cell index={0}>{t('spend.total')}</Table.Summary.Cell>
                <Table.Summary.Cell index={1}>{fmt(report.data.total.quota)}</Table.Summary.Cell>
                {reseller && <Table.Summary.Cell index={2}>{fmt(report.data.total.billed_quota)}</Table.Summary.Cell>}
                <Table.Summary.Cell index={reseller ? 3 : 2}>{report.data.total.requests}</Table.Summary.Cell>
                <Table.Summary.Cell index={reseller ? 4 : 3}>{report.data.total.prompt_tokens}</Table.Summary.Cell>
                <Table.Summary.Cell index={reseller ? 5 : 4}>{report.data.total.completion_tokens}</Table.Summary.Cell>
              </Table.Summary.Row>
            ) : null
          }
        />
      </Card>
    </>
  );
}

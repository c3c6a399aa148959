import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Budget } from '@tollway/shared';
import { App, Button, Popconfirm, Progress, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListCard } from '../../../components/ListCard';
import { PageHeader } from '../../../components/PageHeader';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { attempt } from '../../../lib/attempt';
import { formatTime } from '../../../lib/format-time';
import { useQuotaFormat } from '../../../lib/self';
import { useIsMobile } from '../../../lib/useIsMobile';
import { deleteBudget, fetchBudgets, orgKey } from '../api';
import { BudgetModal } from '../components/BudgetModal';
import { useOrgView } from '../context';

/** Used share at which a bar turns orange (red once used up). */
const WARN_PERCENT = 80;
const PERCENT = 100;
const WARN_COLOR = '#fa8c16';
const EXHAUSTED_COLOR = '#ff4d4f';

/** /app/org/:id/budgets: every budget with its period's use; budgets.manage creates, edits and deletes. */
export default function BudgetsPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const fmt = useQuotaFormat();
  const mobile = useIsMobile();
  const manage = can('budgets.manage');
  const list = useQuery({ queryKey: orgKey(org.id, 'budgets'), queryFn: () => fetchBudgets(org.id) });
  const [editing, setEditing] = useState<Budget | null | undefined>(undefined);
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey(org.id, 'budgets') });
  const remove = (b: Budget) =>
    attempt(async () => {
      await deleteBudget(org.id, b.id);
      void message.success(t('budgets.deleted'));
      await refresh();
    });

  const columns: TableColumnsType<Budget> = [
    {
      title: t('budgets.level'),
      key: 'level',
      width: 190,
      render: (_, b) => (
        <Space size={4} wrap>
          <Tag color="blue">{t(`budgets.levels.${b.level}`)}</Tag>
          {b.level !== 'org' && <Typography.Text strong>{b.target_name || b.tag || `#${b.target_id}`}</Typography.Text>}
        </Space>
      ),
    },
    { title: t('budgets.period'), key: 'period', width: 90, render: (_, b) => t(`budgets.periods.${b.period}`) },
    {
      title: t('budgets.usage'),
      key: 'usage',
      width: 260,
      render: (_, b) => {
        const pct = b.limit_quota > 0 ? (b.used_quota / b.limit_quota) * PERCENT : 0;
        const exhausted = b.used_quota >= b.limit_quota;
        return (
          <div className="tw-org-budget-progress" data-testid={`budget-usage-${b.id}`} data-exhausted={exhausted}>
            <Progress
              percent={Math.min(PERCENT, Math.round(pct))}
              size="small"
              status={exhausted ? 'exception' : 'normal'}
              strokeColor={exhausted ? EXHAUSTED_COLOR : pct >= WARN_PERCENT ? WARN_COLOR : undefined}
              aria-label={t('budgets.usage')}
            />
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {fmt(b.used_quota)} / {fmt(b.limit_quota)}
              {exhausted && (
                <Tag color="red" style={{ marginInlineStart: 6 }}>
                  {t('budgets.exhausted')}
                </Tag>
              )}
            </Typography.Text>
            <div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {b.resets_at > 0
                  ? t('budgets.resets', { time: formatTime(b.resets_at, { seconds: false }) })
                  : t('budgets.noReset')}
              </Typography.Text>
            </div>
          </div>
        );
      },
    },
    {
      title: t('budgets.mode'),
      key: 'hard',
      width: 80,
      render: (_, b) =>
        b.hard ? <Tag color="red">{t('budgets.hardShort')}</Tag> : <Tag color="gold">{t('budgets.softShort')}</Tag>,
    },
    {
      title: t('budgets.alerts'),
      key: 'alerts',
      width: 140,
      render: (_, b) => (b.alert_percents.length ? b.alert_percents.map((p) => `${p}%`).join(', ') : '—'),
    },
    ...(manage
      ? [
          {
            title: t('common.actions'),
            key: 'actions',
            width: 140,
            render: (_: unknown, b: Budget) => (
              <Space size={4}>
                <Button size="small" type="text" onClick={() => setEditing(b)} data-testid={`budget-edit-${b.id}`}>
                  {t('common.edit')}
                </Button>
                <Popconfirm
                  title={t('common.delete')}
                  description={t('budgets.deleteConfirm')}
                  okText={t('common.delete')}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove(b)}
                >
                  <Button size="small" type="text" danger data-testid={`budget-delete-${b.id}`}>
                    {t('common.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]
      : []),
  ];

  return (
    <>
      <PageHeader
        title={t('page.budgets')}
        subtitle={t('budgets.subtitle')}
        extra={
          <Space wrap>
            <Button
              icon={<ReloadOutlined />}
              aria-label={t('common.refresh')}
              onClick={() => void refresh()}
              data-testid="budgets-refresh"
            />
            {manage && (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)} data-testid="budget-add">
                {t('budgets.add')}
              </Button>
            )}
          </Space>
        }
      />
      <ListCard>
        <Table<Budget>
          rowKey="id"
          size="middle"
          columns={cardColumns(columns, mobile)}
          dataSource={list.data ?? []}
          loading={list.isFetching}
          {...cardLayout(mobile, 900)}
          pagination={{ pageSize: 50, hideOnSinglePage: true }}
          onRow={(b) => ({ 'data-testid': `budget-row-${b.id}` }) as object}
        />
      </ListCard>
      <BudgetModal budget={editing} onClose={() => setEditing(undefined)} />
    </>
  );
}

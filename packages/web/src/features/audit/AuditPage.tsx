import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Table, Tag, Tooltip, Typography } from 'antd';
import { Role, type AuditRow } from '@tollway/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../lib/format-time';
import { PageHeader } from '../../components/PageHeader';
import { usePaging } from '../../lib/paging';
import { AUDIT_KEY, EMPTY_FILTERS, fetchAudit, type AuditFilters } from './api';
import { AuditDetail } from './components/AuditDetail';
import { AuditFilterBar } from './components/AuditFilterBar';
import { auditActionText, auditTargetText } from './labels';
import './audit.css';

const ROLE_COLOR: Record<number, string> = { [Role.Root]: 'gold', [Role.Admin]: 'blue', [Role.Common]: 'default' };

/** The administrators' audit log (root only): filters, a paged table, and each entry's detail as JSON text. */
export default function AuditPage() {
  const { t, i18n } = useTranslation('audit');
  const lang = i18n.language;
  const { page, pageSize, setPage, pagination } = usePaging('audit-page-size', (r) => t('pageInfo', r));
  const [filters, setFilters] = useState<AuditFilters>(EMPTY_FILTERS);
  const [open, setOpen] = useState<AuditRow | null>(null);
  const list = useQuery({
    queryKey: [...AUDIT_KEY, filters, page, pageSize],
    queryFn: () => fetchAudit(filters, page, pageSize),
    placeholderData: keepPreviousData,
  });

  return (
    <div className="tw-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <Card>
        <AuditFilterBar
          onApply={(f) => {
            setFilters(f);
            setPage(1);
            if (JSON.stringify(f) === JSON.stringify(filters)) void list.refetch();
          }}
        />
        <Table<AuditRow>
          rowKey="id"
          data-testid="audit-table"
          size="middle"
          loading={list.isFetching}
          dataSource={list.data?.items ?? []}
          scroll={{ x: 960 }}
          locale={{ emptyText: t('empty') }}
          pagination={pagination(list.data?.total ?? 0)}
          columns={[
            { title: t('col.time'), dataIndex: 'created_at', width: 170, render: (v: number) => formatTime(v) },
            {
              title: t('col.actor'),
              key: 'actor',
              width: 200,
              render: (_, r) => (
                <span data-testid="audit-actor">
                  {r.actor_name} <Typography.Text type="secondary">#{r.actor_id}</Typography.Text>{' '}
                  <Tag color={ROLE_COLOR[r.actor_role] ?? 'default'}>
                    {t(`role.${r.actor_role}`, { defaultValue: String(r.actor_role) })}
                  </Tag>
                </span>
              ),
            },
            {
              title: t('col.action'),
              dataIndex: 'action',
              width: 220,
              // The words in the viewer's language; the stored code on hover (and in the detail).
              render: (v: string) => (
                <Tooltip title={v}>
                  <span data-testid="audit-action" data-code={v}>
                    {auditActionText(v, lang)}
                  </span>
                </Tooltip>
              ),
            },
            {
              title: t('col.target'),
              key: 'target',
              width: 180,
              ellipsis: true,
              render: (_, r) => (
                <span data-testid="audit-target">{auditTargetText(r.target_type, r.target_id, lang)}</span>
              ),
            },
            {
              title: t('col.outcome'),
              dataIndex: 'outcome',
              width: 100,
              render: (v: AuditRow['outcome']) => (
                <Tag color={v === 'denied' ? 'red' : 'green'}>{t(`outcome.${v}`)}</Tag>
              ),
            },
            {
              title: t('col.ip'),
              dataIndex: 'ip',
              width: 150,
              render: (v: string, r) => (
                <Tooltip title={r.user_agent}>
                  <span>{v}</span>
                </Tooltip>
              ),
            },
            {
              title: t('col.detail'),
              key: 'detail',
              width: 90,
              fixed: 'right',
              render: (_, r) => (
                <Button size="small" onClick={() => setOpen(r)} data-testid="audit-view">
                  {t('detail.show')}
                </Button>
              ),
            },
          ]}
        />
      </Card>
      <AuditDetail row={open} onClose={() => setOpen(null)} />
    </div>
  );
}

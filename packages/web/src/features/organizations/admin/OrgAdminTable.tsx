import { ExportOutlined } from '@ant-design/icons';
import { OrgStatus, type Organization } from '@tollway/shared';
import {
  Button,
  Flex,
  Popconfirm,
  Switch,
  Table,
  Tag,
  Typography,
  type ButtonProps,
  type PaginationProps,
  type TableColumnsType,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { formatTime } from '../../../lib/format-time';
import { useQuotaFormat } from '../../../lib/self';
import { rowTestId } from '../../../lib/table';
import { useIsMobile } from '../../../lib/useIsMobile';

/** Width the columns scroll at on a desktop. */
const MIN_WIDTH = 1150;
/** Basis points per percent (markup_bp 100 = 1 %). */
const BP_PER_PERCENT = 100;

interface Props {
  items: Organization[];
  loading: boolean;
  pagination: PaginationProps;
  /** Root may switch the reseller permission (the server refuses anyone else). */
  root: boolean;
  onStatus: (org: Organization, enabled: boolean) => Promise<void>;
  onReseller: (org: Organization, reseller: boolean) => Promise<void>;
  onOpen: (org: Organization) => void;
}

/** The organizations with their wallet, members and reseller terms; enable/disable, reseller and open. */
export function OrgAdminTable({ items, loading, pagination, root, onStatus, onReseller, onOpen }: Props) {
  const { t } = useTranslation('orgAdmin');
  const fmt = useQuotaFormat();
  const mobile = useIsMobile();
  /** The row and action waiting for the server ("<id>:status" / "<id>:reseller"). */
  const [busy, setBusy] = useState<string>();
  const run = async (key: string, action: () => Promise<void>) => {
    setBusy(key);
    try {
      await action();
    } finally {
      setBusy(undefined);
    }
  };

  const columns: TableColumnsType<Organization> = [
    {
      title: t('col.name'),
      key: 'name',
      width: 170,
      fixed: 'left',
      render: (_, o) => (
        <Typography.Text strong ellipsis={{ tooltip: o.name }} data-testid={`org-admin-name-${o.id}`}>
          {o.name}
        </Typography.Text>
      ),
    },
    { title: t('col.id'), dataIndex: 'id', key: 'id', width: 60 },
    {
      title: t('col.status'),
      key: 'status',
      width: 90,
      render: (_, o) =>
        o.status === OrgStatus.Enabled ? (
          <Tag color="green" data-testid={`org-admin-status-${o.id}`} data-status={o.status}>
            {t('status.enabled')}
          </Tag>
        ) : (
          <Tag color="red" data-testid={`org-admin-status-${o.id}`} data-status={o.status}>
            {t('status.disabled')}
          </Tag>
        ),
    },
    { title: t('col.members'), dataIndex: 'member_count', key: 'members', width: 80 },
    { title: t('col.quota'), key: 'quota', width: 110, render: (_, o) => fmt(o.quota) },
    { title: t('col.used'), key: 'used', width: 110, render: (_, o) => fmt(o.used_quota) },
    {
      title: t('col.reseller'),
      key: 'reseller',
      width: 170,
      render: (_, o) => (
        <Flex gap={8} align="center" wrap>
          {root ? (
            // Switching off takes the markup back to 0: asked first. Switching on is harmless.
            <Popconfirm
              title={t('reseller.offTitle')}
              description={t('reseller.offText')}
              disabled={!o.reseller}
              okText={t('reseller.off')}
              okButtonProps={{ danger: true, 'data-testid': `org-admin-reseller-off-${o.id}` } as ButtonProps}
              cancelText={t('common:action.cancel')}
              onConfirm={() => run(`${o.id}:reseller`, () => onReseller(o, false))}
            >
              <Switch
                size="small"
                checked={o.reseller}
                loading={busy === `${o.id}:reseller`}
                aria-label={t('reseller.switch', { name: o.name })}
                onChange={(next) => {
                  if (next) void run(`${o.id}:reseller`, () => onReseller(o, true));
                }}
                data-testid={`org-admin-reseller-${o.id}`}
              />
            </Popconfirm>
          ) : (
            <Tag color={o.reseller ? 'gold' : 'default'} data-testid={`org-admin-reseller-tag-${o.id}`}>
              {o.reseller ? t('reseller.yes') : t('reseller.no')}
            </Tag>
          )}
          {o.reseller && (
            <Typography.Text type="secondary" data-testid={`org-admin-markup-${o.id}`}>
              {t('reseller.markup', { value: o.markup_bp / BP_PER_PERCENT })}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    { title: t('col.created'), key: 'created', width: 160, render: (_, o) => formatTime(o.created_at) },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 200,
      fixed: 'right',
      render: (_, o) => {
        const enabled = o.status === OrgStatus.Enabled;
        return (
          <Flex gap={4} wrap>
            <Popconfirm
              title={enabled ? t('status.disableTitle', { name: o.name }) : t('status.enableTitle', { name: o.name })}
              description={enabled ? t('status.disableText') : t('status.enableText')}
              okText={enabled ? t('status.disable') : t('status.enable')}
              okButtonProps={{ danger: enabled, 'data-testid': `org-admin-status-confirm-${o.id}` } as ButtonProps}
              cancelText={t('common:action.cancel')}
              onConfirm={() => run(`${o.id}:status`, () => onStatus(o, !enabled))}
            >
              <Button
                size="small"
                type="link"
                danger={enabled}
                loading={busy === `${o.id}:status`}
                data-testid={`org-admin-toggle-${o.id}`}
              >
                {enabled ? t('status.disable') : t('status.enable')}
              </Button>
            </Popconfirm>
            <Button
              size="small"
              type="link"
              icon={<ExportOutlined />}
              onClick={() => onOpen(o)}
              data-testid={`org-admin-open-${o.id}`}
            >
              {t('open')}
            </Button>
          </Flex>
        );
      },
    },
  ];

  return (
    <Table<Organization>
      rowKey="id"
      size="middle"
      columns={cardColumns(columns, mobile)}
      dataSource={items}
      loading={loading}
      {...cardLayout(mobile, MIN_WIDTH)}
      onRow={rowTestId((o) => `org-admin-row-${o.id}`)}
      pagination={pagination}
    />
  );
}

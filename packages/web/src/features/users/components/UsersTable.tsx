import { Flex, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { renderQuota, type UserManageAction } from '@tollway/shared';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';
import type { AdminUser } from '../api';
import { sizedPagination } from '../../../lib/paging';
import { useIsMobile } from '../../../lib/useIsMobile';
import { RowActions } from './RowActions';
import { GroupTag, RoleTag, StatusTag, isDeleted } from './UserTags';
import { rowTestId } from '../../../lib/table';
import { cardColumns, cardLayout } from '../../../components/cardTable';

interface Props {
  items: AdminUser[];
  loading: boolean;
  page: number;
  pageSize: number;
  total: number;
  onPageChange: (page: number, pageSize: number) => void;
  onManage: (user: AdminUser, action: UserManageAction) => Promise<void>;
  onEdit: (user: AdminUser) => void;
  onAddQuota: (user: AdminUser) => void;
  onSubscriptions: (user: AdminUser) => void;
}

/** Width the user columns scroll at on a desktop. */
const USERS_MIN_WIDTH = 1120;

/** The user list with statistics, invite information, role, status and row actions. */
export function UsersTable({
  items,
  loading,
  page,
  pageSize,
  total,
  onPageChange,
  onManage,
  onEdit,
  onAddQuota,
  onSubscriptions,
}: Props) {
  const { t } = useTranslation('users');
  const { data: status } = useStatus();
  const mobile = useIsMobile();
  const quota = useMemo(() => {
    const opts = { displayInCurrency: status?.display_in_currency ?? true, quotaPerUnit: status?.quota_per_unit };
    return (n: number | undefined) => renderQuota(n ?? 0, opts);
  }, [status?.display_in_currency, status?.quota_per_unit]);

  const columns: TableColumnsType<AdminUser> = cardColumns<AdminUser>(
    [
      { title: t('col.id'), dataIndex: 'id', width: 64, fixed: mobile ? undefined : 'left' },
      {
        title: t('col.username'),
        key: 'username',
        width: 160,
        render: (_, u) => (
          <Flex vertical gap={2} align="flex-start">
            <Typography.Text strong delete={isDeleted(u)} ellipsis={{ tooltip: u.username }}>
              {u.username}
            </Typography.Text>
            {u.display_name && u.display_name !== u.username ? (
              <Typography.Text type="secondary" ellipsis={{ tooltip: u.display_name }} style={{ fontSize: 12 }}>
                {u.display_name}
              </Typography.Text>
            ) : null}
            {u.remark ? (
              <Tooltip title={u.remark}>
                <Tag style={{ maxWidth: 160, overflow: 'hidden', textOverflow: 'ellipsis', marginInlineEnd: 0 }}>
                  {t('col.remark')}: {u.remark}
                </Tag>
              </Tooltip>
            ) : null}
          </Flex>
        ),
      },
      {
        title: t('col.group'),
        dataIndex: 'group',
        width: 100,
        render: (g: string | undefined) => <GroupTag group={g} />,
      },
      {
        title: t('col.stats'),
        key: 'stats',
        width: 190,
        render: (_, u) => (
          <Flex wrap gap={4}>
            <Tooltip title={t('stats.remainingHint')}>
              <Tag color="green">{t('stats.remaining', { value: quota(u.quota) })}</Tag>
            </Tooltip>
            <Tag color="blue">{t('stats.used', { value: quota(u.used_quota) })}</Tag>
            <Tag color="cyan">{t('stats.requests', { value: u.request_count ?? 0 })}</Tag>
          </Flex>
        ),
      },
      {
        title: t('col.invite'),
        key: 'invite',
        width: 190,
        render: (_, u) => (
          <Flex wrap gap={4}>
            <Tag>{t('invite.count', { value: u.aff_count ?? 0 })}</Tag>
            <Tag>{t('invite.income', { value: quota(u.aff_history_quota) })}</Tag>
            <Tag>{u.inviter_id ? t('invite.inviter', { value: u.inviter_id }) : t('invite.noInviter')}</Tag>
          </Flex>
        ),
      },
      { title: t('col.role'), dataIndex: 'role', width: 100, render: (r: number) => <RoleTag role={r} /> },
      { title: t('col.status'), key: 'status', width: 90, render: (_, u) => <StatusTag user={u} /> },
      {
        title: t('col.actions'),
        key: 'actions',
        width: 230,
        fixed: mobile ? undefined : 'right',
        render: (_, u) => (
          <RowActions
            user={u}
            onManage={onManage}
            onEdit={onEdit}
            onAddQuota={onAddQuota}
            onSubscriptions={onSubscriptions}
          />
        ),
      },
    ],
    mobile,
  );

  return (
    <Table<AdminUser>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={items}
      loading={loading}
      {...cardLayout(mobile, USERS_MIN_WIDTH)}
      onRow={rowTestId((u) => `user-row-${u.id}`)}
      pagination={{
        ...sizedPagination((range) => t('pageInfo', range)),
        current: page,
        pageSize,
        total,
        onChange: onPageChange,
      }}
    />
  );
}

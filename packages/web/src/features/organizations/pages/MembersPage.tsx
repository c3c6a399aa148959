import { UserAddOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { InvitationStatus, ORG_ROLES, type OrgInvitation, type OrgMember, type OrgRole } from '@tollway/shared';
import {
  App,
  Button,
  Card,
  type ButtonProps,
  Popconfirm,
  Select,
  Table,
  Tag,
  Typography,
  type TableColumnsType,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ListCard } from '../../../components/ListCard';
import { PageHeader } from '../../../components/PageHeader';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { attempt } from '../../../lib/attempt';
import { formatTime } from '../../../lib/format-time';
import { useStoredUser } from '../../../lib/session';
import { useIsMobile } from '../../../lib/useIsMobile';
import {
  fetchInvitations,
  MY_ORGS_KEY,
  orgKey,
  removeMember,
  revokeInvitation,
  setMemberRole,
  useMembers,
  useTeams,
} from '../api';
import { InviteModal } from '../components/InviteModal';
import { RoleTag } from '../components/RoleTag';
import { useOrgView } from '../context';
import { setCurrentOrg } from '../current';

/** /app/org/:id/members: members with their roles and teams; invite, change a role, remove, leave; pending invitations. */
export default function MembersPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const me = useStoredUser();
  const mobile = useIsMobile();
  const members = useMembers(org.id);
  const teams = useTeams(org.id);
  const [inviting, setInviting] = useState(false);
  const manage = can('members.manage');
  const teamName = new Map((teams.data ?? []).map((tm) => [tm.id, tm.name]));
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey(org.id) });

  const changeRole = (m: OrgMember, role: OrgRole) =>
    attempt(async () => {
      await setMemberRole(org.id, m.user_id, role);
      void message.success(t('members.roleChanged'));
      await refresh();
    });
  const remove = (m: OrgMember) =>
    attempt(async () => {
      await removeMember(org.id, m.user_id);
      if (m.user_id === me?.id) {
        void message.success(t('members.left'));
        setCurrentOrg(undefined);
        await queryClient.invalidateQueries({ queryKey: MY_ORGS_KEY });
        navigate('/app/tokens');
        return;
      }
      void message.success(t('members.removed'));
      await refresh();
    });

  /** Roles the caller may give: owner only by an owner. */
  const roles = ORG_ROLES.filter((r) => r !== 'owner' || can('org.own'));
  const columns: TableColumnsType<OrgMember> = [
    {
      title: t('members.name'),
      key: 'name',
      width: 200,
      render: (_, m) => (
        <Typography.Text strong>
          {m.display_name || m.username}
          {m.user_id === me?.id ? t('members.you') : ''}
          {m.display_name && m.display_name !== m.username && (
            <Typography.Text type="secondary"> @{m.username}</Typography.Text>
          )}
        </Typography.Text>
      ),
    },
    { title: t('members.email'), dataIndex: 'email', key: 'email', width: 200, render: (e: string) => e || '—' },
    {
      title: t('members.role'),
      key: 'role',
      width: 150,
      render: (_, m) =>
        manage && m.user_id !== me?.id && (m.role !== 'owner' || can('org.own')) ? (
          <Select
            size="small"
            value={m.role}
            aria-label={t('members.roleOf', { name: m.username })}
            style={{ width: 120 }}
            options={roles.map((r) => ({ value: r, label: t(`role.${r}`) }))}
            onChange={(r) => void changeRole(m, r)}
            data-testid={`member-role-${m.user_id}`}
          />
        ) : (
          <RoleTag role={m.role} />
        ),
    },
    {
      title: t('members.teams'),
      key: 'teams',
      width: 200,
      render: (_, m) =>
        m.team_ids.length ? m.team_ids.map((id) => <Tag key={id}>{teamName.get(id) ?? `#${id}`}</Tag>) : '—',
    },
    {
      title: t('members.joined'),
      dataIndex: 'joined_at',
      key: 'joined',
      width: 160,
      render: (n: number) => formatTime(n, { seconds: false }),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      width: 120,
      render: (_, m) =>
        m.user_id === me?.id ? (
          <Popconfirm
            title={t('members.leave')}
            description={t('members.leaveConfirm', { name: org.name })}
            okText={t('members.leave')}
            okButtonProps={{ danger: true }}
            onConfirm={() => remove(m)}
          >
            <Button size="small" danger data-testid="member-leave">
              {t('members.leave')}
            </Button>
          </Popconfirm>
        ) : manage && (m.role !== 'owner' || can('org.own')) ? (
          <Popconfirm
            title={t('members.remove')}
            description={t('members.removeConfirm', { name: m.username })}
            okText={t('members.remove')}
            okButtonProps={{ danger: true, 'data-testid': `member-remove-confirm-${m.user_id}` } as ButtonProps}
            onConfirm={() => remove(m)}
          >
            <Button size="small" danger type="text" data-testid={`member-remove-${m.user_id}`}>
              {t('members.remove')}
            </Button>
          </Popconfirm>
        ) : null,
    },
  ];

  return (
    <>
      <PageHeader
        title={t('page.members')}
        subtitle={t('members.subtitle')}
        extra={
          manage && (
            <Button
              type="primary"
              icon={<UserAddOutlined />}
              onClick={() => setInviting(true)}
              data-testid="org-invite"
            >
              {t('members.invite')}
            </Button>
          )
        }
      />
      <ListCard>
        <Table<OrgMember>
          rowKey="user_id"
          size="middle"
          columns={cardColumns(columns, mobile)}
          dataSource={members.data ?? []}
          loading={members.isFetching}
          {...cardLayout(mobile, 1030)}
          pagination={false}
          onRow={(m) => ({ 'data-testid': `member-row-${m.user_id}` }) as object}
        />
      </ListCard>
      {manage && <PendingInvitations />}
      <InviteModal open={inviting} onClose={() => setInviting(false)} />
    </>
  );
}

/** GET /api/org/:id/invitations (pending only), with revoke. */
function PendingInvitations() {
  const { t } = useTranslation('organizations');
  const { org } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const mobile = useIsMobile();
  const list = useQuery({ queryKey: orgKey(org.id, 'invitations'), queryFn: () => fetchInvitations(org.id) });
  const now = Date.now() / 1000;
  const pending = (list.data ?? []).filter((i) => i.status === InvitationStatus.Pending && i.expires_at > now);
  const revoke = (i: OrgInvitation) =>
    attempt(async () => {
      await revokeInvitation(org.id, i.id);
      void message.success(t('members.revoked'));
      await queryClient.invalidateQueries({ queryKey: orgKey(org.id, 'invitations') });
    });
  const columns: TableColumnsType<OrgInvitation> = [
    { title: t('members.by'), key: 'by', width: 220, render: (_, i) => i.email || t('members.byLink') },
    { title: t('members.role'), key: 'role', width: 120, render: (_, i) => <RoleTag role={i.role} /> },
    {
      title: t('members.expires'),
      dataIndex: 'expires_at',
      key: 'expires',
      width: 170,
      render: (n: number) => formatTime(n, { seconds: false }),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      width: 100,
      render: (_, i) => (
        <Popconfirm
          title={t('members.revoke')}
          description={t('members.revokeConfirm')}
          okText={t('members.revoke')}
          okButtonProps={{ danger: true }}
          onConfirm={() => revoke(i)}
        >
          <Button size="small" danger type="text" data-testid={`invitation-revoke-${i.id}`}>
            {t('members.revoke')}
          </Button>
        </Popconfirm>
      ),
    },
  ];
  return (
    <Card title={t('members.pending')} style={{ marginTop: 16 }} variant="borderless">
      <Table<OrgInvitation>
        rowKey="id"
        size="small"
        columns={cardColumns(columns, mobile)}
        dataSource={pending}
        loading={list.isFetching}
        {...cardLayout(mobile, 610)}
        pagination={false}
        locale={{ emptyText: t('members.pendingEmpty') }}
        onRow={(i) => ({ 'data-testid': `invitation-row-${i.id}` }) as object}
      />
    </Card>
  );
}

import { EditOutlined, PlusOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ORG_TEAM_NAME_MAX, type OrgTeam } from '@tollway/shared';
import { App, Button, Input, Popconfirm, Select, Space, Table, Tag, type TableColumnsType } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ActionModal } from '../../../components/ActionModal';
import { ListCard } from '../../../components/ListCard';
import { PageHeader } from '../../../components/PageHeader';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { attempt } from '../../../lib/attempt';
import { useIsMobile } from '../../../lib/useIsMobile';
import { useSubmit } from '../../../lib/useSubmit';
import {
  addTeamMember,
  createTeam,
  deleteTeam,
  orgKey,
  removeTeamMember,
  renameTeam,
  useMembers,
  useTeams,
} from '../api';
import { useOrgView } from '../context';

/** /app/org/:id/teams: teams with their members and token counts; create, rename, delete, add and remove members. */
export default function TeamsPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const mobile = useIsMobile();
  const teams = useTeams(org.id);
  const members = useMembers(org.id);
  const manage = can('teams.manage');
  const [editing, setEditing] = useState<OrgTeam | null | undefined>(undefined);
  const nameOf = new Map((members.data ?? []).map((m) => [m.user_id, m.display_name || m.username]));
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey(org.id) });

  const add = (team: OrgTeam, userId: number) =>
    attempt(async () => {
      await addTeamMember(org.id, team.id, userId);
      void message.success(t('teams.memberAdded'));
      await refresh();
    });
  const drop = (team: OrgTeam, userId: number) =>
    attempt(async () => {
      await removeTeamMember(org.id, team.id, userId);
      void message.success(t('teams.memberRemoved'));
      await refresh();
    });
  const remove = (team: OrgTeam) =>
    attempt(async () => {
      await deleteTeam(org.id, team.id);
      void message.success(t('teams.deleted'));
      await refresh();
    });

  const columns: TableColumnsType<OrgTeam> = [
    { title: t('teams.name'), dataIndex: 'name', key: 'name', width: 180 },
    {
      title: t('teams.members'),
      key: 'members',
      width: 360,
      render: (_, team) => (
        <Space size={[4, 4]} wrap>
          {team.member_ids.length === 0 && <span>{t('teams.empty')}</span>}
          {team.member_ids.map((id) => (
            <Tag
              key={id}
              closable={manage}
              closeIcon={manage ? undefined : false}
              onClose={(e) => {
                e.preventDefault();
                void drop(team, id);
              }}
              data-testid={`team-${team.id}-member-${id}`}
            >
              {nameOf.get(id) ?? `#${id}`}
            </Tag>
          ))}
          {manage && (
            <Select<number>
              size="small"
              style={{ width: 150 }}
              placeholder={t('teams.addMember')}
              aria-label={`${t('teams.addMember')}: ${team.name}`}
              value={null}
              options={(members.data ?? [])
                .filter((m) => !team.member_ids.includes(m.user_id))
                .map((m) => ({ value: m.user_id, label: m.display_name || m.username }))}
              onChange={(v) => void add(team, v)}
              data-testid={`team-add-member-${team.id}`}
            />
          )}
        </Space>
      ),
    },
    { title: t('teams.tokens'), dataIndex: 'token_count', key: 'tokens', width: 90 },
    ...(manage
      ? [
          {
            title: t('common.actions'),
            key: 'actions',
            width: 170,
            render: (_: unknown, team: OrgTeam) => (
              <Space size={4}>
                <Button
                  size="small"
                  type="text"
                  icon={<EditOutlined />}
                  onClick={() => setEditing(team)}
                  data-testid={`team-rename-${team.id}`}
                >
                  {t('teams.rename')}
                </Button>
                <Popconfirm
                  title={t('common.delete')}
                  description={t('teams.deleteConfirm', { name: team.name })}
                  okText={t('common.delete')}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove(team)}
                >
                  <Button size="small" type="text" danger data-testid={`team-delete-${team.id}`}>
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
        title={t('page.teams')}
        subtitle={t('teams.subtitle')}
        extra={
          manage && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)} data-testid="team-create">
              {t('teams.create')}
            </Button>
          )
        }
      />
      <ListCard>
        <Table<OrgTeam>
          rowKey="id"
          size="middle"
          columns={cardColumns(columns, mobile)}
          dataSource={teams.data ?? []}
          loading={teams.isFetching}
          {...cardLayout(mobile, 800)}
          pagination={false}
          onRow={(team) => ({ 'data-testid': `team-row-${team.id}` }) as object}
        />
      </ListCard>
      <TeamNameModal team={editing} onClose={() => setEditing(undefined)} />
    </>
  );
}

/** Create (team null) or rename a team. */
function TeamNameModal({ team, onClose }: { team: OrgTeam | null | undefined; onClose: () => void }) {
  const { t } = useTranslation('organizations');
  const { org } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const { loading, run } = useSubmit();
  const open = team !== undefined;
  useEffect(() => {
    if (open) setName(team?.name ?? '');
  }, [open, team]);
  const save = () =>
    run(async () => {
      if (team) await renameTeam(org.id, team.id, name.trim());
      else await createTeam(org.id, name.trim());
      void message.success(team ? t('teams.renamed') : t('teams.created'));
      await queryClient.invalidateQueries({ queryKey: orgKey(org.id) });
      onClose();
    });
  return (
    <ActionModal
      open={open}
      title={team ? t('teams.rename') : t('teams.create')}
      okText={t('common.save')}
      okTestid="team-name-save"
      okProps={{ disabled: !name.trim() }}
      loading={loading}
      onOk={save}
      onClose={onClose}
      destroyOnHidden
    >
      <Input
        value={name}
        onChange={(e) => setName(e.target.value)}
        onPressEnter={() => name.trim() && void save()}
        aria-label={t('teams.name')}
        placeholder={t('teams.name')}
        maxLength={ORG_TEAM_NAME_MAX}
        autoFocus
        data-testid="team-name-input"
      />
    </ActionModal>
  );
}

import { CopyOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { TokenStatus, type OrgToken } from '@tollway/shared';
import { Alert, App, Button, Modal, Popconfirm, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListCard } from '../../../components/ListCard';
import { PageHeader } from '../../../components/PageHeader';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { useCopy } from '../../../components/useCopy';
import { attempt } from '../../../lib/attempt';
import { formatTime } from '../../../lib/format-time';
import { useQuotaFormat } from '../../../lib/self';
import { useStoredUser } from '../../../lib/session';
import { useIsMobile } from '../../../lib/useIsMobile';
import { deleteOrgToken, orgKey, updateOrgToken, useOrgTokens, useTeams, withPrefix } from '../api';
import { OrgTokenModal } from '../components/OrgTokenModal';
import { useOrgView } from '../context';

/** /app/org/:id/tokens: the organization's tokens (a member: their own); create, enable/disable, delete. */
export default function TokensPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const copy = useCopy();
  const fmt = useQuotaFormat();
  const me = useStoredUser();
  const mobile = useIsMobile();
  const tokens = useOrgTokens(org.id);
  const teams = useTeams(org.id);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<OrgToken>();
  const teamName = new Map((teams.data ?? []).map((tm) => [tm.id, tm.name]));
  const mayAct = (tok: OrgToken) => can('tokens.all') || (can('tokens.own') && tok.member_id === me?.id);
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey(org.id) });

  const toggle = (tok: OrgToken) =>
    attempt(async () => {
      const status = tok.status === TokenStatus.Enabled ? TokenStatus.Disabled : TokenStatus.Enabled;
      await updateOrgToken(org.id, tok.id, {
        name: tok.name,
        member_id: tok.member_id,
        team_id: tok.team_id,
        unlimited_quota: tok.unlimited_quota,
        remain_quota: tok.remain_quota,
        expired_time: tok.expired_time,
        status: status as 1 | 2,
      });
      void message.success(t('tokens.toggled'));
      await refresh();
    });
  const remove = (tok: OrgToken) =>
    attempt(async () => {
      await deleteOrgToken(org.id, tok.id);
      void message.success(t('tokens.deleted'));
      await refresh();
    });

  const columns: TableColumnsType<OrgToken> = [
    { title: t('tokens.name'), dataIndex: 'name', key: 'name', width: 160, fixed: 'left' },
    {
      title: t('tokens.key'),
      key: 'key',
      width: 240,
      render: (_, tok) => <span className="tw-org-key tw-org-key-masked">{withPrefix(tok.key)}</span>,
    },
    {
      title: t('tokens.status'),
      key: 'status',
      width: 100,
      render: (_, tok) =>
        tok.status === TokenStatus.Enabled ? (
          <Tag color="green">{t('tokens.enabled')}</Tag>
        ) : (
          <Tag color="red">{t('tokens.disabled')}</Tag>
        ),
    },
    { title: t('tokens.member'), dataIndex: 'member_name', key: 'member', width: 130 },
    {
      title: t('tokens.team'),
      key: 'team',
      width: 130,
      render: (_, tok) => (tok.team_id ? (teamName.get(tok.team_id) ?? `#${tok.team_id}`) : '—'),
    },
    { title: t('tokens.used'), key: 'used', width: 110, render: (_, tok) => fmt(tok.used_quota) },
    {
      title: t('tokens.remain'),
      key: 'remain',
      width: 110,
      render: (_, tok) => (tok.unlimited_quota ? t('common.unlimited') : fmt(tok.remain_quota)),
    },
    {
      title: t('tokens.expiry'),
      key: 'expiry',
      width: 150,
      render: (_, tok) => formatTime(tok.expired_time, { seconds: false, empty: t('common.never') }),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      width: 150,
      fixed: 'right',
      render: (_, tok) =>
        mayAct(tok) && (
          <Space size={4}>
            <Button
              size="small"
              type="text"
              onClick={() => void toggle(tok)}
              data-testid={`org-token-toggle-${tok.id}`}
            >
              {tok.status === TokenStatus.Enabled ? t('tokens.disable') : t('tokens.enable')}
            </Button>
            <Popconfirm
              title={t('common.delete')}
              description={t('tokens.deleteConfirm', { name: tok.name })}
              okText={t('common.delete')}
              okButtonProps={{ danger: true }}
              onConfirm={() => remove(tok)}
            >
              <Button size="small" type="text" danger data-testid={`org-token-delete-${tok.id}`}>
                {t('common.delete')}
              </Button>
            </Popconfirm>
          </Space>
        ),
    },
  ];

  return (
    <>
      <PageHeader
        title={t('page.tokens')}
        subtitle={t('tokens.subtitle')}
        extra={
          <Space wrap>
            <Button icon={<ReloadOutlined />} aria-label={t('common.refresh')} onClick={() => void refresh()} />
            {can('tokens.own') && (
              <Button
                type="primary"
                icon={<PlusOutlined />}
                onClick={() => setCreating(true)}
                data-testid="org-token-add"
              >
                {t('tokens.add')}
              </Button>
            )}
          </Space>
        }
      />
      <ListCard>
        <Table<OrgToken>
          rowKey="id"
          size="middle"
          columns={cardColumns(columns, mobile)}
          dataSource={tokens.data ?? []}
          loading={tokens.isFetching}
          {...cardLayout(mobile, 1280)}
          pagination={{ pageSize: 20, hideOnSinglePage: true }}
          rowClassName={(tok) => (tok.status === TokenStatus.Enabled ? '' : 'tw-tok-row-disabled')}
          onRow={(tok) => ({ 'data-testid': `org-token-row-${tok.id}` }) as object}
        />
      </ListCard>
      <OrgTokenModal
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(tok) => {
          setCreating(false);
          setCreated(tok);
          void message.success(t('tokens.created'));
        }}
      />
      <Modal
        open={!!created}
        title={t('tokens.keyTitle')}
        onCancel={() => setCreated(undefined)}
        footer={
          <Button type="primary" onClick={() => setCreated(undefined)} data-testid="org-token-key-close">
            {t('invite.done')}
          </Button>
        }
      >
        <Alert type="warning" showIcon title={t('tokens.keyOnce')} style={{ marginBottom: 12 }} />
        <Typography.Paragraph className="tw-org-key" data-testid="org-token-key">
          {created ? withPrefix(created.key) : ''}
        </Typography.Paragraph>
        <Button
          icon={<CopyOutlined />}
          onClick={() => created && void copy(withPrefix(created.key), t('tokens.keyCopied'))}
          data-testid="org-token-key-copy"
        >
          {t('tokens.copyKey')}
        </Button>
      </Modal>
    </>
  );
}

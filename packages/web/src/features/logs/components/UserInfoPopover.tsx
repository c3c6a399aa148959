import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Descriptions, Popover, Spin, Tag, Typography } from 'antd';
import { Role, UserStatus, type UserPublic } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../../lib/api';

/** Width of the popover's card. */
const CARD_WIDTH = 320;

const roleColor = (role: number) => (role >= Role.Root ? 'volcano' : role >= Role.Admin ? 'gold' : undefined);
const roleKey = (role: number) =>
  role >= Role.Root ? 'root' : role >= Role.Admin ? 'admin' : role === Role.Common ? 'common' : 'unknown';

function statusTag(u: UserPublic, t: (k: string) => string) {
  if (u.DeletedAt) return <Tag color="red">{t('user.status.deleted')}</Tag>;
  if (u.status === UserStatus.Enabled) return <Tag color="green">{t('user.status.enabled')}</Tag>;
  if (u.status === UserStatus.Disabled) return <Tag color="orange">{t('user.status.disabled')}</Tag>;
  return <Tag>{t('user.status.unknown')}</Tag>;
}

/** The user's account as GET /api/user/{id} answers it (administrators only; a user of the same or higher level is refused). */
function UserInfo({ id, quota }: { id: number; quota: (n: number) => string }) {
  const { t } = useTranslation('logs');
  const info = useQuery({
    queryKey: ['log-user', id],
    queryFn: () => apiGet<UserPublic>(`/api/user/${id}`, { silent: true }),
    retry: false,
    staleTime: 30_000,
  });
  if (info.isPending)
    return (
      <div style={{ textAlign: 'center', padding: 16 }} data-testid="log-user-loading">
        <Spin />
      </div>
    );
  if (info.isError)
    return (
      <Alert
        type="error"
        showIcon
        message={t('user.failed')}
        description={info.error.message}
        data-testid="log-user-error"
      />
    );
  const u = info.data;
  const invited = u.aff_count > 0 || u.aff_history_quota > 0 || u.inviter_id > 0;
  return (
    <Descriptions size="small" column={1} bordered data-testid="log-user-info" style={{ width: CARD_WIDTH }}>
      <Descriptions.Item label={t('user.username')}>
        <Typography.Text data-testid="log-user-username">{u.username}</Typography.Text>{' '}
        <Typography.Text type="secondary">#{u.id}</Typography.Text>
      </Descriptions.Item>
      <Descriptions.Item label={t('user.displayName')}>{u.display_name || '—'}</Descriptions.Item>
      <Descriptions.Item label={t('user.group')}>
        <Tag color="blue">{u.group || 'default'}</Tag>
      </Descriptions.Item>
      <Descriptions.Item label={t('user.balance')}>
        <span className="tw-log-num" data-testid="log-user-balance">
          {quota(u.quota)}
        </span>
      </Descriptions.Item>
      <Descriptions.Item label={t('user.used')}>
        <span className="tw-log-num" data-testid="log-user-used">
          {quota(u.used_quota)}
        </span>
      </Descriptions.Item>
      <Descriptions.Item label={t('user.requests')}>
        <span className="tw-log-num" data-testid="log-user-requests">
          {u.request_count}
        </span>
      </Descriptions.Item>
      <Descriptions.Item label={t('user.roleStatus')}>
        <Tag color={roleColor(u.role)}>{t(`user.role.${roleKey(u.role)}`)}</Tag>
        {statusTag(u, t)}
      </Descriptions.Item>
      {invited ? (
        <Descriptions.Item label={t('user.invite')}>
          <span data-testid="log-user-invite">
            {u.aff_count > 0 || u.aff_history_quota > 0 ? (
              <div>{t('user.inviteText', { count: u.aff_count, earned: quota(u.aff_history_quota) })}</div>
            ) : null}
            {u.inviter_id > 0 ? (
              <Typography.Text type="secondary">{t('user.inviter', { id: u.inviter_id })}</Typography.Text>
            ) : null}
          </span>
        </Descriptions.Item>
      ) : null}
    </Descriptions>
  );
}

/** A log row's username that opens the user's account card on click (the popover mounts its content when first opened, so the table loads no users). */
export function UserInfoPopover({
  id,
  username,
  quota,
}: {
  id: number;
  username: string;
  quota: (n: number) => string;
}) {
  const { t } = useTranslation('logs');
  return (
    <Popover trigger="click" placement="right" title={t('user.title')} content={<UserInfo id={id} quota={quota} />}>
      <Button
        type="link"
        size="small"
        style={{ padding: 0, height: 'auto', maxWidth: '100%' }}
        title={username}
        data-testid={`log-user-${id}`}
      >
        <Typography.Text ellipsis style={{ color: 'inherit', maxWidth: '100%' }}>
          {username}
        </Typography.Text>
      </Button>
    </Popover>
  );
}

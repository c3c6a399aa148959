import { DesktopOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SessionView } from '@tollway/shared';
import { App, Button, Card, Flex, List, Popconfirm, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiDelete, apiGet } from '../../lib/api';
import { formatTime } from '../../lib/format-time';
import { describeAgent } from './agent';
import { IconTitle } from '../../components/IconTitle';

const SESSIONS_KEY = ['user', 'sessions'] as const;
/** The names of the built-in third-party sign-ins in a session's origin (oauth:<key>). */
const OAUTH_NAMES: Record<string, string> = {
  github: 'GitHub',
  oidc: 'OIDC',
  linuxdo: 'LinuxDO',
  wechat: 'WeChat',
  telegram: 'Telegram',
};
const ORIGIN_KINDS = ['password', 'passkey', 'ldap', 'oauth', 'custom_oauth'] as const;
type OriginKind = (typeof ORIGIN_KINDS)[number];
const isOriginKind = (k: string): k is OriginKind => (ORIGIN_KINDS as readonly string[]).includes(k);

/** Personal settings: the account's signed-in browsers; sign out one, or every one but this. */
export function SessionsCard() {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: SESSIONS_KEY, queryFn: () => apiGet<SessionView[]>('/api/user/sessions') });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
  const others = (sessions.data ?? []).filter((s) => !s.current).length;
  /** How a session signed in, in words ('' when it is not recorded). */
  const via = (origin: string): string => {
    const [kind = '', rest = ''] = origin.split(':');
    if (!isOriginKind(kind)) return '';
    return t(`sessions.via.${kind}`, { provider: OAUTH_NAMES[rest] ?? rest });
  };

  const signOut = async (id: string) => {
    await apiDelete(`/api/user/sessions/${id}`);
    message.success(t('sessions.signedOut'));
    refresh();
  };
  const signOutOthers = async () => {
    const res = await apiDelete<number>('/api/user/sessions');
    message.success(t('sessions.othersSignedOut', { count: res.data ?? 0 }));
    refresh();
  };

  return (
    <Card
      title={<IconTitle icon={DesktopOutlined}>{t('sessions.title')}</IconTitle>}
      extra={
        <Popconfirm title={t('sessions.signOutOthersConfirm')} onConfirm={signOutOthers} disabled={others === 0}>
          <Button size="small" danger disabled={others === 0} data-testid="sessions-sign-out-others">
            {t('sessions.signOutOthers')}
          </Button>
        </Popconfirm>
      }
      data-testid="me-sessions"
    >
      <Typography.Paragraph type="secondary">{t('sessions.desc')}</Typography.Paragraph>
      <List
        size="small"
        loading={sessions.isLoading}
        dataSource={sessions.data ?? []}
        locale={{ emptyText: t('sessions.empty') }}
        renderItem={(s) => (
          <List.Item
            data-testid={s.current ? 'session-current' : 'session-other'}
            actions={
              s.current
                ? [
                    <Tag color="blue" key="current">
                      {t('sessions.current')}
                    </Tag>,
                  ]
                : [
                    <Popconfirm key="out" title={t('sessions.signOutConfirm')} onConfirm={() => signOut(s.id)}>
                      <Button size="small" data-testid="session-sign-out">
                        {t('sessions.signOut')}
                      </Button>
                    </Popconfirm>,
                  ]
            }
          >
            <Flex vertical gap={2} style={{ minWidth: 0 }}>
              <Typography.Text ellipsis={{ tooltip: s.user_agent }} style={{ maxWidth: 320 }}>
                {s.user_agent ? describeAgent(s.user_agent) : t('sessions.unknownAgent')}
              </Typography.Text>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {via(s.origin) && <span data-testid="session-origin">{via(s.origin)} · </span>}
                {s.ip} · {t('sessions.started', { time: formatTime(s.created_at, { seconds: false }) })} ·{' '}
                {t('sessions.expires', { time: formatTime(s.expires_at, { seconds: false }) })}
              </Typography.Text>
            </Flex>
          </List.Item>
        )}
      />
    </Card>
  );
}

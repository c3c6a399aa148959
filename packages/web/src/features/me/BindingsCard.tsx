import {
  GithubOutlined,
  LinkOutlined,
  MailOutlined,
  SafetyCertificateOutlined,
  SendOutlined,
  WechatOutlined,
} from '@ant-design/icons';
import type { UserPublic } from '@tollway/shared';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Popconfirm, Tag, Typography, type ButtonProps } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete } from '../../lib/api';
import { attempt } from '../../lib/attempt';
import { SELF_KEY } from '../../lib/self';
import { useStatus } from '../../lib/status';
import { BindEmailModal } from './BindEmailModal';
import { BindTelegramModal } from './BindTelegramModal';
import { BindWeChatModal } from './BindWeChatModal';
import { LdapBindingRow } from './LdapBindingRow';
import { authorizeUrl, fetchOAuthState, type OAuthProvider } from '../../lib/oauth';
import type { Status } from '../../lib/status';
import { IconTitle } from '../../components/IconTitle';
import { LinuxDoIcon } from '../../components/icons/LinuxDoIcon';
import { CustomBindingRows } from '../../components/custom-oauth/CustomBindingRows';

const ROWS: {
  key: 'email' | 'github' | 'oidc' | 'wechat' | 'telegram' | 'linuxdo';
  field: keyof UserPublic;
  icon: ReactNode;
}[] = [
  { key: 'email', field: 'email', icon: <MailOutlined /> },
  { key: 'github', field: 'github_id', icon: <GithubOutlined /> },
  { key: 'oidc', field: 'oidc_id', icon: <SafetyCertificateOutlined /> },
  { key: 'wechat', field: 'wechat_id', icon: <WechatOutlined /> },
  { key: 'telegram', field: 'telegram_id', icon: <SendOutlined /> },
  { key: 'linuxdo', field: 'linux_do_id', icon: <LinuxDoIcon /> },
];

/** Whether a provider can be bound: its sign-in is turned on in the settings. */
function canBind(key: (typeof ROWS)[number]['key'], status: Status | undefined): boolean {
  if (!status) return false;
  const on: Record<string, boolean> = {
    github: status.github_oauth,
    oidc: status.oidc_enabled,
    linuxdo: status.linuxdo_oauth,
    wechat: status.wechat_login,
    telegram: status.telegram_oauth && Boolean(status.telegram_bot_name),
  };
  return on[key] ?? false;
}

const REDIRECTED: readonly string[] = ['github', 'oidc', 'linuxdo'] satisfies OAuthProvider[];

/**
 * Linked outside accounts; the email can be bound or changed with a mailed code, GitHub, OIDC and LinuxDO bound
 * through the provider's sign-in with a state bound to this session (the callback page binds), WeChat with the
 * code its account sends, Telegram with its widget; a linked provider is released (the server keeps a user's last
 * way to sign in). Binding is offered only for the providers turned on.
 */
export function BindingsCard({ user }: { user: UserPublic }) {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const unbind = (key: string) =>
    attempt(async () => {
      await apiDelete(`/api/user/oauth/bindings/${key}`);
      void message.success(t('bindings.unbindDone'));
      await queryClient.invalidateQueries({ queryKey: SELF_KEY });
    });
  const [bindingEmail, setBindingEmail] = useState(false);
  const [bindingTelegram, setBindingTelegram] = useState(false);
  const [bindingWechat, setBindingWechat] = useState(false);
  const { data: status } = useStatus();
  const bind = async (key: string) => {
    if (key === 'telegram') return setBindingTelegram(true);
    if (key === 'wechat') return setBindingWechat(true);
    if (!status || !REDIRECTED.includes(key)) return;
    try {
      // Asked for by the signed-in console, the state binds the account to this session on the way back.
      const state = await fetchOAuthState();
      window.location.href = authorizeUrl(key as OAuthProvider, status, state);
    } catch {
      void message.error(t('bindings.oauthStartFailed'));
    }
  };
  const telegramBot = status?.telegram_oauth ? status.telegram_bot_name : '';
  return (
    <Card
      title={<IconTitle icon={LinkOutlined}>{t('bindings.title')}</IconTitle>}
      styles={{ body: { paddingBlock: 4 } }}
      data-testid="me-bindings"
    >
      {ROWS.map((row, i) => {
        const value = String(user[row.field] ?? '');
        return (
          <div
            key={row.key}
            className="tw-binding-row"
            style={{ borderTop: i ? '1px solid var(--tw-border)' : undefined }}
          >
            <span style={{ fontSize: 18, opacity: 0.75 }}>{row.icon}</span>
            <div style={{ flex: 1, minWidth: 0 }}>
              <Typography.Text>{t(`bindings.${row.key}`)}</Typography.Text>
              {value && (
                <Typography.Text type="secondary" ellipsis style={{ display: 'block', fontSize: 12 }}>
                  {value}
                </Typography.Text>
              )}
            </div>
            {value ? <Tag color="success">{t('bindings.bound')}</Tag> : <Tag>{t('bindings.unbound')}</Tag>}
            {row.key === 'email' && (
              <Button size="small" onClick={() => setBindingEmail(true)} data-testid="me-bind-email">
                {value ? t('bindings.change') : t('bindings.bind')}
              </Button>
            )}
            {row.key !== 'email' && value && (
              <Popconfirm
                title={t('bindings.unbindTitle', { name: t(`bindings.${row.key}`) })}
                description={t('bindings.unbindConfirm')}
                okText={t('bindings.unbind')}
                okButtonProps={{ danger: true, 'data-testid': `me-unbind-confirm-${row.key}` } as ButtonProps}
                cancelText={t('common:action.cancel')}
                onConfirm={() => unbind(row.key)}
              >
                <Button size="small" danger data-testid={`me-unbind-${row.key}`}>
                  {t('bindings.unbind')}
                </Button>
              </Popconfirm>
            )}
            {row.key !== 'email' && !value && canBind(row.key, status) && (
              <Button size="small" onClick={() => void bind(row.key)} data-testid={`me-bind-${row.key}`}>
                {t('bindings.bind')}
              </Button>
            )}
          </div>
        );
      })}
      <CustomBindingRows />
      <LdapBindingRow />
      <BindEmailModal open={bindingEmail} onClose={() => setBindingEmail(false)} />
      {status?.wechat_login && (
        <BindWeChatModal open={bindingWechat} qrcode={status.wechat_qrcode} onClose={() => setBindingWechat(false)} />
      )}
      {telegramBot && (
        <BindTelegramModal open={bindingTelegram} botName={telegramBot} onClose={() => setBindingTelegram(false)} />
      )}
    </Card>
  );
}

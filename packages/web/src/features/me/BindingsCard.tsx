import { GithubOutlined, LinkOutlined, MailOutlined, SafetyCertificateOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
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
import { IconTitle } from '../../components/IconTitle';

const ROWS: { key: 'email' | 'github' | 'oidc' | 'wechat' | 'telegram' | 'linuxdo'; field: keyof UserPublic; icon: ReactNode }[] = [
  { key: 'email', field: 'email', icon: <MailOutlined /> },
  { key: 'github', field: 'github_id', icon: <GithubOutlined /> },
  { key: 'oidc', field: 'oidc_id', icon: <SafetyCertificateOutlined /> },
  { key: 'wechat', field: 'wechat_id', icon: <WechatOutlined /> },
  { key: 'telegram', field: 'telegram_id', icon: <SendOutlined /> },
  { key: 'linuxdo', field: 'linux_do_id', icon: <LinkOutlined /> },
];

/**
 * Linked outside accounts; the email can be bound or changed with a mailed code, Telegram bound with its widget,
 * and a linked provider released (the server keeps a user's last way to sign in).
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
  const { data: status } = useStatus();
  const telegramBot = status?.telegram_oauth ? status.telegram_bot_name : '';
  return (
    <Card title={<IconTitle icon={LinkOutlined}>{t('bindings.title')}</IconTitle>} styles={{ body: { paddingBlock: 4 } }} data-testid="me-bindings">
      {ROWS.map((row, i) => {
        const value = String(user[row.field] ?? '');
        return (
          <div key={row.key} className="tw-binding-row" style={{ borderTop: i ? '1px solid var(--tw-border)' : undefined }}>
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
            {row.key === 'telegram' && !value && telegramBot && (
              <Button size="small" onClick={() => setBindingTelegram(true)} data-testid="me-bind-telegram">
                {t('bindings.bind')}
              </Button>
            )}
          </div>
        );
      })}
      <BindEmailModal open={bindingEmail} onClose={() => setBindingEmail(false)} />
      {telegramBot && <BindTelegramModal open={bindingTelegram} botName={telegramBot} onClose={() => setBindingTelegram(false)} />}
    </Card>
  );
}

import { GithubOutlined, SafetyCertificateOutlined, WechatOutlined } from '@ant-design/icons';
import { App, Button, Flex } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Status } from '../../lib/status';
import { authorizeUrl, fetchOAuthState, rememberReturnTo, type OAuthProvider } from '../../lib/oauth';
import { LinuxDoIcon } from '../../components/icons/LinuxDoIcon';
import { TelegramLogin } from '../../components/TelegramLogin';
import { WeChatLoginModal } from './WeChatLoginModal';
import { CustomOAuthButtons } from '../../components/custom-oauth/CustomOAuthButtons';

export { hasOAuth } from '../../lib/oauth';

/** Third-party sign-in buttons, shown only for the providers enabled in status. */
export function OAuthButtons({
  status,
  returnTo,
  onLoggedIn,
}: {
  status: Status;
  returnTo: string | null;
  onLoggedIn: (user: unknown) => void;
}) {
  const { t } = useTranslation('auth');
  const { message } = App.useApp();
  const [pending, setPending] = useState<OAuthProvider | null>(null);
  const [wechatOpen, setWechatOpen] = useState(false);

  const start = async (provider: OAuthProvider) => {
    setPending(provider);
    try {
      const state = await fetchOAuthState();
      rememberReturnTo(returnTo);
      window.location.href = authorizeUrl(provider, status, state);
    } catch {
      void message.error(t('oauth.stateFailed'));
      setPending(null);
    }
  };

  return (
    <Flex vertical gap={10}>
      {status.github_oauth && (
        <Button
          block
          icon={<GithubOutlined />}
          loading={pending === 'github'}
          data-testid="oauth-github"
          onClick={() => void start('github')}
        >
          {t('oauth.github')}
        </Button>
      )}
      {status.oidc_enabled && (
        <Button
          block
          icon={<SafetyCertificateOutlined />}
          loading={pending === 'oidc'}
          data-testid="oauth-oidc"
          onClick={() => void start('oidc')}
        >
          {t('oauth.oidc')}
        </Button>
      )}
      {status.linuxdo_oauth && (
        <Button
          block
          icon={<LinuxDoIcon />}
          loading={pending === 'linuxdo'}
          data-testid="oauth-linuxdo"
          onClick={() => void start('linuxdo')}
        >
          {t('oauth.linuxdo')}
        </Button>
      )}
      {status.wechat_login && (
        <Button
          block
          icon={<WechatOutlined style={{ color: '#07c160' }} />}
          data-testid="oauth-wechat"
          onClick={() => setWechatOpen(true)}
        >
          {t('oauth.wechat')}
        </Button>
      )}
      <CustomOAuthButtons status={status} returnTo={returnTo} onLoggedIn={onLoggedIn} />
      {status.telegram_oauth && status.telegram_bot_name && (
        <TelegramLogin botName={status.telegram_bot_name} onLoggedIn={onLoggedIn} />
      )}
      <WeChatLoginModal
        open={wechatOpen}
        qrcode={status.wechat_qrcode}
        onClose={() => setWechatOpen(false)}
        onLoggedIn={onLoggedIn}
      />
    </Flex>
  );
}

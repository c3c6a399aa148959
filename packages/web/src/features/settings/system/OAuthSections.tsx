import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { useOptions } from '../model/useOptions';

const GITHUB: OptionKey[] = ['GitHubOAuthEnabled', 'GitHubClientId', 'GitHubClientSecret'];
const LINUXDO: OptionKey[] = [
  'LinuxDOOAuthEnabled',
  'LinuxDOClientId',
  'LinuxDOClientSecret',
  'LinuxDOMinimumTrustLevel',
];
const WECHAT: OptionKey[] = [
  'WeChatAuthEnabled',
  'WeChatServerAddress',
  'WeChatServerToken',
  'WeChatAccountQRCodeImageURL',
];
const TELEGRAM: OptionKey[] = ['TelegramOAuthEnabled', 'TelegramBotToken', 'TelegramBotName'];
const TURNSTILE: OptionKey[] = ['TurnstileCheckEnabled', 'TurnstileSiteKey', 'TurnstileSecretKey'];

function useServer(): string {
  const { t } = useTranslation('settings');
  return useOptions().data?.ServerAddress || t('yourAddress');
}

/** Code-hosting (GitHub) sign-in. */
export function GitHubSection() {
  const { t } = useTranslation('settings');
  const server = useServer();
  return (
    <SettingsSection
      id="github"
      title={t('section.github.title')}
      description={t('section.github.desc', { home: server, callback: `${server}/oauth/github` })}
      keys={GITHUB}
    >
      <OptionField k="GitHubOAuthEnabled" span="full" />
      <OptionField k="GitHubClientId" />
      <OptionField k="GitHubClientSecret" />
    </SettingsSection>
  );
}

/** Forum (LinuxDO) sign-in with a minimum trust level of 0–4. */
export function LinuxDoSection() {
  const { t } = useTranslation('settings');
  const server = useServer();
  return (
    <SettingsSection
      id="linuxdo"
      title={t('section.linuxdo.title')}
      description={t('section.linuxdo.desc', { callback: `${server}/oauth/linuxdo` })}
      keys={LINUXDO}
    >
      <OptionField k="LinuxDOOAuthEnabled" span="full" />
      <OptionField k="LinuxDOClientId" />
      <OptionField k="LinuxDOClientSecret" />
      <OptionField k="LinuxDOMinimumTrustLevel" min={0} max={4} />
    </SettingsSection>
  );
}

/** QR-code login through a WeChat server. */
export function WeChatSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="wechat" title={t('section.wechat.title')} description={t('section.wechat.desc')} keys={WECHAT}>
      <OptionField k="WeChatAuthEnabled" span="full" />
      <OptionField k="WeChatServerAddress" placeholder="https://wechat.example.com" />
      <OptionField k="WeChatServerToken" />
      <OptionField k="WeChatAccountQRCodeImageURL" span="full" placeholder="https://example.com/qrcode.png" />
    </SettingsSection>
  );
}

/** Messaging-bot (Telegram) sign-in. */
export function TelegramSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="telegram"
      title={t('section.telegram.title')}
      description={t('section.telegram.desc')}
      keys={TELEGRAM}
    >
      <OptionField k="TelegramOAuthEnabled" span="full" />
      <OptionField k="TelegramBotToken" />
      <OptionField k="TelegramBotName" />
    </SettingsSection>
  );
}

/** Bot check (Turnstile) on login, registration and password reset. */
export function TurnstileSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="turnstile"
      title={t('section.turnstile.title')}
      description={t('section.turnstile.desc')}
      keys={TURNSTILE}
    >
      <OptionField k="TurnstileCheckEnabled" span="full" />
      <OptionField k="TurnstileSiteKey" />
      <OptionField k="TurnstileSecretKey" />
    </SettingsSection>
  );
}

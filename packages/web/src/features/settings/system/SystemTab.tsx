import type { OptionKey } from '@tollway/shared';
import { GeneralSection, ReverseProxySection, WorkerSection } from './AddressSections';
import { EmailWhitelistSection } from './EmailWhitelistSection';
import { FetchSection } from './FetchSection';
import { LoginSection } from './LoginSection';
import { LdapSection } from './LdapSection';
import { GitHubSection, LinuxDoSection, TelegramSection, TurnstileSection, WeChatSection } from './OAuthSections';
import { OidcSection } from './OidcSection';
import { PasskeySection } from './PasskeySection';
import { PaymentSection } from './PaymentSection';
import { SmtpSection } from './SmtpSection';
import { SectionNav, type NavItem } from '../components/SectionNav';
import { CustomOAuthSection } from './CustomOAuthSection';

/** The sign-in providers are root's: shown with a root-only key's section. */
const ROOT_ONLY: OptionKey[] = ['oidc.client_secret'];

const NAV: NavItem[] = [
  { id: 'general', title: 'section.general.title' },
  { id: 'reverse-proxy', title: 'section.reverseProxy.title' },
  { id: 'worker', title: 'section.worker.title' },
  { id: 'payment', title: 'section.payment.title' },
  { id: 'login', title: 'section.login.title' },
  { id: 'email-whitelist', title: 'section.whitelist.title' },
  { id: 'smtp', title: 'section.smtp.title' },
  { id: 'oidc', title: 'section.oidc.title' },
  { id: 'github', title: 'section.github.title' },
  { id: 'linuxdo', title: 'section.linuxdo.title' },
  { id: 'wechat', title: 'section.wechat.title' },
  { id: 'telegram', title: 'section.telegram.title' },
  { id: 'ldap', title: 'section.ldap.title' },
  { id: 'passkey', title: 'section.passkey.title' },
  { id: 'custom-oauth', title: 'section.customOAuth.title', keys: ROOT_ONLY },
  { id: 'turnstile', title: 'section.turnstile.title' },
  { id: 'fetch', title: 'section.fetch.title' },
];

/** The system tab: addresses, proxy, payment, login, mail and third-party sign-in. */
export function SystemTab() {
  return (
    <>
      <SectionNav items={NAV} />
      <GeneralSection />
      <ReverseProxySection />
      <WorkerSection />
      <PaymentSection />
      <LoginSection />
      <EmailWhitelistSection />
      <SmtpSection />
      <OidcSection />
      <GitHubSection />
      <LinuxDoSection />
      <WeChatSection />
      <TelegramSection />
      <LdapSection />
      <PasskeySection />
      <CustomOAuthSection />
      <TurnstileSection />
      <FetchSection />
    </>
  );
}

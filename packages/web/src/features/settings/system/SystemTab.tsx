import { GeneralSection, ReverseProxySection, WorkerSection } from './AddressSections';
import { EmailWhitelistSection } from './EmailWhitelistSection';
import { LoginSection } from './LoginSection';
import { GitHubSection, LinuxDoSection, TelegramSection, TurnstileSection, WeChatSection } from './OAuthSections';
import { OidcSection } from './OidcSection';
import { PaymentSection } from './PaymentSection';
import { SmtpSection } from './SmtpSection';

/** The system tab of spec 1 §2: addresses, proxy, payment, login, mail and third-party sign-in. */
export function SystemTab() {
  return (
    <>
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
      <TurnstileSection />
    </>
  );
}

import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const SMTP: OptionKey[] = ['SMTPServer', 'SMTPPort', 'SMTPAccount', 'SMTPFrom', 'SMTPToken', 'SMTPSSLEnabled'];

/** Outgoing mail (verification codes, password resets, quota alerts). Port defaults to 587. */
export function SmtpSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="smtp" title={t('section.smtp.title')} description={t('section.smtp.desc')} keys={SMTP}>
      <OptionField k="SMTPServer" placeholder="smtp.example.com" />
      <OptionField k="SMTPPort" placeholder="587" />
      <OptionField k="SMTPAccount" placeholder="noreply@example.com" />
      <OptionField k="SMTPFrom" placeholder="noreply@example.com" />
      <OptionField k="SMTPToken" />
      <OptionField k="SMTPSSLEnabled" span="half" />
    </SettingsSection>
  );
}

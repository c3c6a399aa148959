import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { useOptions } from '../model/useOptions';

const PASSKEY: OptionKey[] = [
  'passkey.enabled',
  'passkey.rp_display_name',
  'passkey.rp_id',
  'passkey.origins',
  'passkey.allow_insecure_origin',
  'passkey.user_verification',
  'passkey.attachment_preference',
];

/** Passkey (WebAuthn) sign-in: new-api's passkey.* options; RP id and origins default to ServerAddress. */
export function PasskeySection() {
  const { t } = useTranslation('settings');
  const server = useOptions().data?.ServerAddress || t('yourAddress');
  return (
    <SettingsSection
      id="passkey"
      title={t('section.passkey.title')}
      description={t('section.passkey.desc', { server })}
      keys={PASSKEY}
    >
      <OptionField k="passkey.enabled" span="full" />
      <OptionField k="passkey.rp_display_name" />
      <OptionField k="passkey.rp_id" placeholder="gw.example.com" />
      <OptionField k="passkey.origins" placeholder="https://gw.example.com" />
      <OptionField k="passkey.user_verification" />
      <OptionField k="passkey.attachment_preference" />
      <OptionField k="passkey.allow_insecure_origin" span="full" />
    </SettingsSection>
  );
}

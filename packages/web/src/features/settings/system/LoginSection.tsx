import type { OptionKey } from '@tollway/shared';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const LOGIN: OptionKey[] = [
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'EmailVerificationEnabled',
  'RegisterEnabled',
  'TwoFactorRequiredForAdmins',
];

/**
 * Login and registration switches. Turning password login off asks first; cancelling keeps it on.
 * Requiring two-factor sign-in for administrators asks first too.
 */
export function LoginSection() {
  const { t } = useTranslation('settings');
  const { modal } = App.useApp();
  const confirmDisable = (next: boolean, apply: () => void) => {
    if (next) return apply();
    modal.confirm({
      title: t('section.login.confirmTitle'),
      content: t('section.login.confirmBody'),
      okText: t('common:action.confirm'),
      cancelText: t('common:action.cancel'),
      okButtonProps: { danger: true },
      onOk: apply,
    });
  };
  const confirmTwoFactorRequired = (next: boolean, apply: () => void) => {
    if (!next) return apply();
    modal.confirm({
      title: t('twofa:settings.confirmTitle'),
      content: t('twofa:settings.confirmBody'),
      okText: t('common:action.confirm'),
      cancelText: t('common:action.cancel'),
      onOk: apply,
    });
  };
  return (
    <SettingsSection id="login" title={t('section.login.title')} description={t('section.login.desc')} keys={LOGIN}>
      <OptionField k="PasswordLoginEnabled" span="half" onToggle={confirmDisable} />
      <OptionField k="PasswordRegisterEnabled" span="half" />
      <OptionField k="EmailVerificationEnabled" span="half" />
      <OptionField k="RegisterEnabled" span="half" />
      <OptionField k="TwoFactorRequiredForAdmins" span="full" onToggle={confirmTwoFactorRequired} />
    </SettingsSection>
  );
}

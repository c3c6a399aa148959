import type { OptionKey } from '@tollway/shared';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName } from '../model/options';
import type { BeforeSave } from '../model/useSectionSave';

const QUOTA: OptionKey[] = [
  'QuotaForNewUser',
  'PreConsumedQuota',
  'QuotaForInviter',
  'QuotaForInvitee',
  'QuotaRemindThreshold',
  'AffEnabled',
];
const CHECK_IN: OptionKey[] = ['CheckInEnabled', 'CheckInQuota', 'CheckInMaxQuota'];

/** Quota granted on sign-up and for invitations, pre-consumption and the low-quota reminder (all ≥ 0). */
export function QuotaSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="quota" title={t('section.quota.title')} keys={QUOTA}>
      <OptionField k="QuotaForNewUser" min={0} quota span="third" />
      <OptionField k="PreConsumedQuota" min={0} quota span="third" />
      <OptionField k="QuotaRemindThreshold" min={0} quota span="third" />
      <OptionField k="QuotaForInviter" min={0} quota span="third" />
      <OptionField k="QuotaForInvitee" min={0} quota span="third" />
      <OptionField k="AffEnabled" span="third" />
    </SettingsSection>
  );
}

/** Daily check-in: a fixed reward, or a random one between the minimum and an optional maximum (min 0, step 100). */
export function CheckInSection() {
  const { t } = useTranslation('settings');
  const beforeSave = useCallback<BeforeSave>(
    (values) => {
      const min = Number(values[fieldName('CheckInQuota')] ?? 0);
      const max = Number(values[fieldName('CheckInMaxQuota')] ?? 0);
      return max > 0 && max < min ? t('validation.checkInRange') : null;
    },
    [t],
  );
  return (
    <SettingsSection
      id="checkin"
      title={t('section.checkin.title')}
      description={t('section.checkin.desc')}
      keys={CHECK_IN}
      beforeSave={beforeSave}
    >
      <OptionField k="CheckInEnabled" span="full" />
      <OptionField k="CheckInQuota" min={0} step={100} quota />
      <OptionField k="CheckInMaxQuota" min={0} step={100} quota />
    </SettingsSection>
  );
}

import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const GROUPS: OptionKey[] = ['GroupRatio', 'UserUsableGroups', 'GroupRateLimits'];

/** Group ratios and the groups users may pick, as JSON (validated on blur: not a valid JSON string). */
export function GroupSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="groups" title={t('section.groups.title')} description={t('section.groups.desc')} keys={GROUPS}>
      <OptionField k="GroupRatio" span="half" />
      <OptionField k="UserUsableGroups" span="half" />
      <OptionField k="GroupRateLimits" span="full" />
    </SettingsSection>
  );
}

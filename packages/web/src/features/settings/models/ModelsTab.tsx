import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SectionNav, type NavItem } from '../components/SectionNav';
import { SettingsSection } from '../components/SettingsSection';
import { ExemptGroupFields, useGroupRequired } from '../components/ExemptGroup';
import { useFieldValue } from '../model/useFieldValue';
import { ClaudeSection, GeminiSection } from './ProviderSections';

const GLOBAL: OptionKey[] = [
  'global.pass_through_request_enabled',
  'global.hide_upstream_error_enabled',
  'global.block_browser_extension_enabled',
  'global.safe_check_exempt_enabled',
  'global.safe_check_exempt_group',
  'general_setting.ping_interval_enabled',
  'general_setting.ping_interval_seconds',
];

const NAV: NavItem[] = [
  { id: 'models-global', title: 'section.modelsGlobal.title' },
  { id: 'gemini', title: 'section.gemini.title' },
  { id: 'claude', title: 'section.claude.title' },
];

function GlobalFields() {
  const { t } = useTranslation('settings');
  const ping = useFieldValue('general_setting.ping_interval_enabled') === true;
  return (
    <>
      <OptionField k="global.pass_through_request_enabled" />
      <OptionField k="global.hide_upstream_error_enabled" />
      <OptionField k="global.block_browser_extension_enabled" />
      <ExemptGroupFields
        enabledKey="global.safe_check_exempt_enabled"
        groupKey="global.safe_check_exempt_group"
        placeholder="nsfw-ok"
      />
      <OptionField k="general_setting.ping_interval_enabled" span="half" />
      <OptionField
        k="general_setting.ping_interval_seconds"
        min={1}
        suffix={t('unit.seconds')}
        span="half"
        disabled={!ping}
      />
    </>
  );
}

/** Relay behaviour for every provider: pass-through, hidden upstream errors, browser extensions, safety exemption, stream pings. */
export function ModelsGlobalSection() {
  const { t } = useTranslation('settings');
  const rules = useGroupRequired('global.safe_check_exempt_group');
  return (
    <SettingsSection
      id="models-global"
      title={t('section.modelsGlobal.title')}
      description={t('section.modelsGlobal.desc')}
      keys={GLOBAL}
      rules={rules}
    >
      <GlobalFields />
    </SettingsSection>
  );
}

/** The models tab: global, Gemini and Claude settings. */
export function ModelsTab() {
  return (
    <>
      <SectionNav items={NAV} />
      <ModelsGlobalSection />
      <GeminiSection />
      <ClaudeSection />
    </>
  );
}

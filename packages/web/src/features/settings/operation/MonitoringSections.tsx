import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { LogCleanup } from './LogCleanup';

const LOGS: OptionKey[] = ['LogConsumeEnabled', 'LogChatContentEnabled', 'LogErrorEnabled', 'LogRetentionDays'];
const DASHBOARD: OptionKey[] = ['DataExportEnabled', 'DataExportInterval', 'DataExportDefaultTime'];
const MONITORING: OptionKey[] = [
  'ChannelDisableThreshold',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'AutomaticDisableKeywords',
  'ChannelBreakerEnabled',
  'ChannelBreakerWindowSeconds',
  'ChannelBreakerMinFailures',
  'ChannelBreakerErrorRate',
  'ChannelBreakerCooldownSeconds',
  'ChannelBreakerMaxCooldownSeconds',
];

/** What is logged, how long it is kept, and clean-up of old logs. */
export function LogSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="logs" title={t('section.logs.title')} keys={LOGS}>
      <OptionField k="LogConsumeEnabled" />
      <OptionField k="LogChatContentEnabled" />
      <OptionField k="LogErrorEnabled" />
      <OptionField k="LogRetentionDays" min={0} max={36500} suffix={t('unit.days')} />
      <LogCleanup />
    </SettingsSection>
  );
}

/** Data dashboard: export switch, interval in minutes (≥ 1) and default granularity. */
export function DashboardSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="dashboard" title={t('section.dashboard.title')} keys={DASHBOARD}>
      <OptionField k="DataExportEnabled" span="full" />
      <OptionField k="DataExportInterval" min={1} suffix={t('unit.minutes')} />
      <OptionField k="DataExportDefaultTime" />
    </SettingsSection>
  );
}

/** Channel monitoring: test threshold, automatic disable/enable, the keywords that disable a channel, circuit breakers. */
export function MonitoringSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="monitoring" title={t('section.monitoring.title')} keys={MONITORING}>
      <OptionField k="ChannelDisableThreshold" min={0} suffix={t('unit.seconds')} span="full" />
      <OptionField k="AutomaticDisableChannelEnabled" span="half" />
      <OptionField k="AutomaticEnableChannelEnabled" span="half" />
      <OptionField k="AutomaticDisableKeywords" type="code" />
      <OptionField k="ChannelBreakerEnabled" span="full" />
      <OptionField k="ChannelBreakerWindowSeconds" min={5} max={3600} suffix={t('unit.seconds')} />
      <OptionField k="ChannelBreakerMinFailures" min={1} />
      <OptionField k="ChannelBreakerErrorRate" min={0} max={1} step={0.05} />
      <OptionField k="ChannelBreakerCooldownSeconds" min={1} max={86400} suffix={t('unit.seconds')} />
      <OptionField k="ChannelBreakerMaxCooldownSeconds" min={1} max={86400} suffix={t('unit.seconds')} />
    </SettingsSection>
  );
}

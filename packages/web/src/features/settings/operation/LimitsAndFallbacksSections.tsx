import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const CONCURRENCY: OptionKey[] = ['TokenConcurrencyLimit', 'UserConcurrencyLimit'];
const FALLBACKS: OptionKey[] = ['ModelFallbacks'];

/** Calls in flight per token and per user (0: no limit). */
export function ConcurrencySection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="concurrency"
      title={t('section.concurrency.title')}
      description={t('section.concurrency.desc')}
      keys={CONCURRENCY}
    >
      <OptionField k="TokenConcurrencyLimit" min={0} step={1} span="half" />
      <OptionField k="UserConcurrencyLimit" min={0} step={1} span="half" />
    </SettingsSection>
  );
}

/** Each model's fallback models, as JSON (validated on blur). */
export function ModelFallbacksSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="model-fallbacks"
      title={t('section.modelFallbacks.title')}
      description={t('section.modelFallbacks.desc')}
      keys={FALLBACKS}
    >
      <OptionField k="ModelFallbacks" span="full" />
    </SettingsSection>
  );
}

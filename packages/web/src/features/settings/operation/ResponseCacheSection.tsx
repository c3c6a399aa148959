import { RESPONSE_CACHE_OPTION_KEYS, type OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const KEYS: OptionKey[] = RESPONSE_CACHE_OPTION_KEYS;

/** The response cache (docs/operating/response-cache.md): on/off, its scope, what it applies to, TTL, price and size. */
export function ResponseCacheSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="response-cache"
      title={t('section.responseCache.title')}
      description={t('section.responseCache.desc')}
      keys={KEYS}
    >
      <OptionField k="response_cache.enabled" span="half" />
      <OptionField k="response_cache.scope" span="half" />
      <OptionField k="response_cache.models" span="third" />
      <OptionField k="response_cache.groups" span="third" />
      <OptionField k="response_cache.tokens" span="third" />
      <OptionField k="response_cache.ttl_seconds" min={1} step={60} span="half" />
      <OptionField k="response_cache.hit_price_share" min={0} max={1} step={0.05} span="half" />
      <OptionField k="response_cache.max_entries" min={1} step={1000} span="half" />
      <OptionField k="response_cache.max_answer_bytes" min={1024} step={1024} span="half" />
      <OptionField k="response_cache.semantic_enabled" span="third" />
      <OptionField k="response_cache.semantic_model" span="third" />
      <OptionField k="response_cache.semantic_threshold" min={0.5} max={1} step={0.01} span="third" />
    </SettingsSection>
  );
}

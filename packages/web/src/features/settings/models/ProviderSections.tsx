import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { useFieldValue } from '../model/useFieldValue';

const GEMINI: OptionKey[] = [
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
  'gemini.thinking_adapter_enabled',
  'gemini.thinking_adapter_budget_tokens_percentage',
  'gemini.models_supported_thinking_budget',
];
const CLAUDE: OptionKey[] = [
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'claude.thinking_adapter_enabled',
  'claude.thinking_adapter_budget_tokens_percentage',
];

function GeminiThinking() {
  const on = useFieldValue('gemini.thinking_adapter_enabled') === true;
  return (
    <>
      <OptionField k="gemini.thinking_adapter_enabled" span="half" />
      <OptionField
        k="gemini.thinking_adapter_budget_tokens_percentage"
        min={0.002}
        max={1}
        step={0.001}
        span="half"
        disabled={!on}
      />
    </>
  );
}

/** Gemini: safety and API version per model (JSON), image-capable models, and the thinking adapter (share 0.002–1). */
export function GeminiSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="gemini" title={t('section.gemini.title')} description={t('section.gemini.desc')} keys={GEMINI}>
      <OptionField k="gemini.safety_settings" span="half" />
      <OptionField k="gemini.version_settings" span="half" />
      <OptionField k="gemini.supported_imagine_models" span="half" />
      <OptionField k="gemini.models_supported_thinking_budget" span="half" />
      <GeminiThinking />
    </SettingsSection>
  );
}

function ClaudeThinking() {
  const on = useFieldValue('claude.thinking_adapter_enabled') === true;
  return (
    <>
      <OptionField k="claude.thinking_adapter_enabled" span="half" />
      <OptionField
        k="claude.thinking_adapter_budget_tokens_percentage"
        min={0.1}
        max={1}
        step={0.1}
        span="half"
        disabled={!on}
      />
    </>
  );
}

/** Claude: extra request headers per model, default max_tokens per model (JSON), and the thinking adapter (share 0.1–1). */
export function ClaudeSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="claude" title={t('section.claude.title')} description={t('section.claude.desc')} keys={CLAUDE}>
      <OptionField k="claude.model_headers_settings" span="half" />
      <OptionField k="claude.default_max_tokens" span="half" />
      <ClaudeThinking />
    </SettingsSection>
  );
}

import type { OptionKey } from '@tollway/shared';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName, type SectionValues } from '../model/options';
import { useFieldValue } from '../model/useFieldValue';
import type { BeforeSave } from '../model/useSectionSave';

const KEYS: OptionKey[] = [
  'fallback_pricing_enabled',
  'fallback_single_price',
  'fallback_input_ratio',
  'fallback_completion_ratio',
  'redirect_billing_enabled',
];

const num = (values: SectionValues, k: OptionKey): number => {
  const v = values[fieldName(k)];
  return typeof v === 'number' ? v : 0;
};

/**
 * The pricing fallback rule: a single price with no ratios, or both ratios with no single price
 * (0 means "not set"). Checked only while fallback pricing is on.
 */
export function fallbackValid(values: SectionValues): boolean {
  if (values[fieldName('fallback_pricing_enabled')] !== true) return true;
  const price = num(values, 'fallback_single_price');
  const input = num(values, 'fallback_input_ratio');
  const completion = num(values, 'fallback_completion_ratio');
  if (price > 0) return input === 0 && completion === 0;
  return input > 0 && completion > 0;
}

function FallbackFields() {
  const on = useFieldValue('fallback_pricing_enabled') === true;
  return (
    <>
      <OptionField k="fallback_pricing_enabled" span="half" />
      <OptionField k="redirect_billing_enabled" span="half" />
      <OptionField k="fallback_single_price" min={0} step={0.001} prefix="$" span="third" disabled={!on} />
      <OptionField k="fallback_input_ratio" min={0} step={0.1} span="third" disabled={!on} />
      <OptionField k="fallback_completion_ratio" min={0} step={0.1} span="third" disabled={!on} />
    </>
  );
}

/** Other ratio settings: how models with no price are billed when fallback pricing is on, and redirect billing. */
export function FallbackSection() {
  const { t } = useTranslation('settings');
  const beforeSave = useCallback<BeforeSave>(
    (values) => (fallbackValid(values) ? null : t('validation.fallback')),
    [t],
  );
  return (
    <SettingsSection
      id="fallback"
      title={t('section.fallback.title')}
      description={t('section.fallback.desc')}
      keys={KEYS}
      beforeSave={beforeSave}
    >
      <FallbackFields />
    </SettingsSection>
  );
}

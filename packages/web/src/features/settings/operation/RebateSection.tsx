import type { OptionKey } from '@tollway/shared';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { useFieldValue } from '../model/useFieldValue';

const KEYS: OptionKey[] = ['RebateEnabled', 'RebatePercentage'];

function RebateFields() {
  const on = useFieldValue('RebateEnabled') === true;
  return (
    <>
      <OptionField k="RebateEnabled" span="full" />
      <OptionField
        k="RebatePercentage"
        min={Number.MIN_SAFE_INTEGER}
        max={Number.MAX_SAFE_INTEGER}
        step={0.1}
        suffix="%"
        disabled={!on}
      />
    </>
  );
}

/** Rebate: a switch and a percentage 0–100 (step 0.1; outside is refused with a message, not clamped), editable only while the switch is on. */
export function RebateSection() {
  const { t } = useTranslation('settings');
  const rules = useMemo(() => {
    const msg = t('validation.rebate');
    return { RebatePercentage: z.number(msg).min(0, msg).max(100, msg) };
  }, [t]);
  return (
    <SettingsSection
      id="rebate"
      title={t('section.rebate.title')}
      description={t('section.rebate.desc')}
      keys={KEYS}
      rules={rules}
    >
      <RebateFields />
    </SettingsSection>
  );
}

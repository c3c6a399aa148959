import type { OptionKey } from '@tollway/shared';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { useFieldValue } from '../model/useFieldValue';
import { OptionField } from './OptionField';

/** A switch and the group it exempts, side by side; the group box is live only while the switch is on. */
export function ExemptGroupFields({
  enabledKey,
  groupKey,
  placeholder,
}: {
  enabledKey: OptionKey;
  groupKey: OptionKey;
  placeholder: string;
}) {
  const on = useFieldValue(enabledKey) === true;
  return (
    <>
      <OptionField k={enabledKey} span="half" />
      <OptionField k={groupKey} placeholder={placeholder} span="half" disabled={!on} />
    </>
  );
}

/** The section rule of an exempted group: a name is required. */
export function useGroupRequired(groupKey: OptionKey): Partial<Record<OptionKey, z.ZodType>> {
  const { t } = useTranslation('settings');
  return useMemo(() => ({ [groupKey]: z.string().trim().min(1, t('validation.groupRequired')) }), [groupKey, t]);
}

import { useQueryClient } from '@tanstack/react-query';
import type { OptionKey } from '@tollway/shared';
import { App } from 'antd';
import { useState } from 'react';
import type { UseFormReturn } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { apiPut } from '../../../lib/api';
import { STATUS_KEY } from '../../../lib/status';
import { defOf, fieldName, toFormValue, toOptionText, type OptionMap, type SectionValues } from './options';
import { OPTIONS_KEY } from './useOptions';

export interface Change {
  key: OptionKey;
  value: string;
}

/** Runs before anything is sent; returns a message to show (and stop), or null to go on. */
export type BeforeSave = (values: SectionValues, changes: Change[], options: OptionMap) => string | null;

/**
 * Saves one section: only changed keys are sent, one PUT /api/option/ per key; secrets
 * only when non-empty. No change → a warning. All ok / some failed / all failed → one summary toast.
 * Then the options cache and the status payload (shell name, logo, footer, notice…) are refreshed.
 */
export function useSectionSave(
  keys: readonly OptionKey[],
  form: UseFormReturn<SectionValues>,
  options: OptionMap,
  beforeSave?: BeforeSave,
) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [saving, setSaving] = useState(false);
  /** The last saved value of each key, as text (what "changed" is measured against). */
  const [baseline] = useState(() => {
    const current: Partial<Record<OptionKey, string>> = {};
    for (const k of keys) current[k] = toOptionText(k, toFormValue(k, options[k]));
    return { current };
  });

  const collect = (values: SectionValues): Change[] => {
    const out: Change[] = [];
    for (const k of keys) {
      const text = toOptionText(k, values[fieldName(k)]);
      if (defOf(k).secret ? text.trim() !== '' : text !== baseline.current[k]) out.push({ key: k, value: text });
    }
    return out;
  };

  const send = async (values: SectionValues) => {
    const changes = collect(values);
    if (changes.length === 0) {
      void message.warning(t('toast.noChange'));
      return;
    }
    const stop = beforeSave?.(values, changes, options);
    if (stop) {
      void message.error(stop);
      return;
    }
    setSaving(true);
    try {
      const results = await Promise.allSettled(changes.map((c) => apiPut('/api/option/', c)));
      const saved = changes.filter((_, i) => results[i]!.status === 'fulfilled');
      for (const c of saved) {
        const secret = defOf(c.key).secret;
        baseline.current[c.key] = secret ? '' : c.value;
        const name = fieldName(c.key);
        const shown = toFormValue(c.key, secret ? '' : c.value);
        if (form.getValues(name) !== shown) form.setValue(name, shown);
      }
      if (saved.length > 0) {
        qc.setQueryData<OptionMap>(OPTIONS_KEY, (old) => {
          const next = { ...old };
          for (const c of saved) next[c.key] = defOf(c.key).secret ? '' : c.value;
          return next;
        });
        void qc.invalidateQueries({ queryKey: STATUS_KEY });
        void qc.invalidateQueries({ queryKey: ['groups'] });
      }
      if (saved.length === changes.length) void message.success(t('toast.saved'));
      else if (saved.length > 0) void message.error(t('toast.partial'));
      else void message.error(t('toast.failed'));
    } finally {
      setSaving(false);
    }
  };

  const save = form.handleSubmit(send, () => void message.error(t('toast.checkInput')));
  return { save, saving };
}

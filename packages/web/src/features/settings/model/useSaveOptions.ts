import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiPut } from '../../../lib/api';
import type { OptionMap } from './options';
import { OPTIONS_KEY } from './useOptions';
import type { Change } from './useSectionSave';

/**
 * Saves option changes made outside a section form (the pricing editors): one PUT /api/option/ per key, the
 * options cache updated with what was saved, and the section toasts (saved / partial / failed; nothing → warning).
 * Resolves to the keys that were saved.
 */
export function useSaveOptions() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [saving, setSaving] = useState(false);

  const save = async (changes: Change[]): Promise<Change[]> => {
    if (changes.length === 0) {
      void message.warning(t('toast.noChange'));
      return [];
    }
    setSaving(true);
    try {
      const results = await Promise.allSettled(changes.map((c) => apiPut('/api/option/', c)));
      const saved = changes.filter((_, i) => results[i]!.status === 'fulfilled');
      if (saved.length > 0)
        qc.setQueryData<OptionMap>(OPTIONS_KEY, (old) => {
          const next = { ...old };
          for (const c of saved) next[c.key] = c.value;
          return next;
        });
      if (saved.length === changes.length) void message.success(t('toast.saved'));
      else if (saved.length > 0) void message.error(t('toast.partial'));
      else void message.error(t('toast.failed'));
      return saved;
    } finally {
      setSaving(false);
    }
  };

  return { save, saving };
}

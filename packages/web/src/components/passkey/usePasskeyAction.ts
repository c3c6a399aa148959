import { App } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../lib/api';
import { isPromptDismissed } from '../../lib/passkey';

/**
 * Runs a passkey ceremony: busy while it runs; a refusal of the server was already shown by the API client, a
 * closed browser prompt is a short notice, anything else the browser threw is shown. Resolves to the action's
 * result, or undefined when it did not complete.
 */
export function usePasskeyAction() {
  const { t } = useTranslation('passkey');
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async <T>(action: () => Promise<T>): Promise<T | undefined> => {
      setBusy(true);
      try {
        return await action();
      } catch (err) {
        if (err instanceof ApiFailure) return undefined;
        if (isPromptDismissed(err)) void message.info(t('prompt.dismissed'));
        else void message.error(t('prompt.failed', { message: err instanceof Error ? err.message : String(err) }));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [message, t],
  );
  return { busy, run };
}

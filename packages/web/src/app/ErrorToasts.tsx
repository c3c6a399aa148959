import { App as AntApp } from 'antd';
import { useEffect } from 'react';
import { setErrorNotifier } from '../lib/api';

/** Prefix of a toast's key: one toast per distinct text, so the same error repeated replaces itself instead of stacking. */
const KEY_PREFIX = 'api-error:';

/** Installs antd's message API as the API client's error toast, one toast per distinct message. */
export function ErrorToasts() {
  const { message } = AntApp.useApp();
  useEffect(
    () => setErrorNotifier((m) => void message.open({ type: 'error', content: m, key: KEY_PREFIX + m })),
    [message],
  );
  return null;
}

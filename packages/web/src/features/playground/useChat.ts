import { App } from 'antd';
import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { redirectToLogin } from '../../lib/api';
import { ChatFailure, sendChat, type ChatSettings, type ChatTurn } from './chat-stream';

/** The conversation and its sending state: each answer streams into the last turn; stop keeps what arrived. */
export function useChat(settings: ChatSettings) {
  const { t } = useTranslation('playground');
  const { message } = App.useApp();
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);

  const patchLast = (fn: (m: ChatTurn) => ChatTurn) =>
    setTurns((all) => all.map((m, i) => (i === all.length - 1 ? fn(m) : m)));

  const send = useCallback(
    async (text: string) => {
      const question: ChatTurn = { role: 'user', content: text, status: 'complete' };
      const history = [...turns.filter((m) => m.status !== 'error'), question];
      setTurns([...turns, question, { role: 'assistant', content: '', status: 'loading' }]);
      setBusy(true);
      const ctrl = new AbortController();
      abort.current = ctrl;
      try {
        await sendChat(
          history,
          settings,
          (piece) => patchLast((m) => ({ ...m, content: m.content + piece, status: 'incomplete' })),
          ctrl.signal,
        );
        patchLast((m) => ({ ...m, status: 'complete' }));
      } catch (err) {
        if (ctrl.signal.aborted) patchLast((m) => ({ ...m, status: 'complete' }));
        else {
          if (err instanceof ChatFailure && err.status === 401) redirectToLogin();
          const text = err instanceof Error ? err.message : String(err);
          patchLast((m) => ({ ...m, content: m.content || text, status: 'error' }));
          void message.error(t('failed', { message: text }));
        }
      } finally {
        setBusy(false);
        abort.current = null;
      }
    },
    [turns, settings, message, t],
  );

  return { turns, busy, send, stop: () => abort.current?.abort(), clear: () => setTurns([]) };
}

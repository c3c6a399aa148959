import { Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../lib/status';
import { fillChatLink } from './chat-link';
import { useChatKey } from './useChatKey';

/** /chat2link (spec 3 §2): goes on to the configured chat link with the user's key filled in. */
export default function Chat2LinkPage() {
  const { t } = useTranslation('shell');
  const { data: status } = useStatus();
  const key = useChatKey();
  const target = status && !key.isLoading ? fillChatLink(status.chat_link || status.chat_link2, key.data ?? undefined, status.server_address) : undefined;
  useEffect(() => {
    if (target) window.location.replace(target);
  }, [target]);
  if (status && !key.isLoading && !target) return <Result status="info" title={t('chat.noLink')} data-testid="chat-no-link" />;
  return <Spin style={{ display: 'block', marginTop: 120 }} />;
}

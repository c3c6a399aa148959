import { Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { safeUrl } from '../../lib/sanitize';
import { useStatus } from '../../lib/status';
import { fillChatLink } from './chat-link';
import { useChatKey } from './useChatKey';

/** /chat2link: goes on to the configured chat link (an http(s) address) with the user's key filled in. */
export default function Chat2LinkPage() {
  const { t } = useTranslation('shell');
  const { data: status } = useStatus();
  const key = useChatKey();
  const target =
    status && !key.isLoading
      ? safeUrl(
          fillChatLink(status.chat_link || status.chat_link2, key.data ?? undefined, status.server_address),
          'page',
        )
      : undefined;
  useEffect(() => {
    if (target) window.location.replace(target);
  }, [target]);
  if (status && !key.isLoading && !target)
    return <Result status="info" title={t('chat.noLink')} data-testid="chat-no-link" />;
  return <Spin style={{ display: 'block', marginTop: 120 }} />;
}

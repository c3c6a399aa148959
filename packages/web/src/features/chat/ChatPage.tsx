import { Result, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { safeUrl } from '../../lib/sanitize';
import { useStatus } from '../../lib/status';
import { ContentFrame } from '../../components/RichContent';
import { chatEntry, fillChatLink } from './chat-link';
import { useChatKey } from './useChatKey';

/** /chat/:id: saved chat entry `id` (an http(s) address) in a sandboxed frame, with the user's key and the server address filled in. */
export default function ChatPage() {
  const { t } = useTranslation('shell');
  const { id } = useParams<{ id?: string }>();
  const { data: status } = useStatus();
  const key = useChatKey();
  const entry = chatEntry(status?.chats, Number(id ?? 0));
  if (!status || key.isLoading) return <Spin style={{ display: 'block', marginTop: 120 }} />;
  const src = entry
    ? safeUrl(fillChatLink(entry.url, key.data ?? undefined, status.server_address), 'page')
    : undefined;
  if (!entry || !src) return <Result status="warning" title={t('chat.parseFailed')} data-testid="chat-missing" />;
  return <ContentFrame src={src} title={entry.name} className="tw-chat-frame" testId="chat-frame" />;
}

import { Result, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useStatus } from '../../lib/status';
import { chatEntry, fillChatLink } from './chat-link';
import { useChatKey } from './useChatKey';

/** /chat/:id (spec 3 §2): saved chat entry `id` embedded in a frame, with the user's key and the server address filled in. */
export default function ChatPage() {
  const { t } = useTranslation('shell');
  const { id } = useParams<{ id?: string }>();
  const { data: status } = useStatus();
  const key = useChatKey();
  const entry = chatEntry(status?.chats, Number(id ?? 0));
  if (!status || key.isLoading) return <Spin style={{ display: 'block', marginTop: 120 }} />;
  if (!entry) return <Result status="warning" title={t('chat.parseFailed')} data-testid="chat-missing" />;
  const src = fillChatLink(entry.url, key.data ?? undefined, status.server_address);
  return <iframe className="tw-chat-frame" src={src} title={entry.name} data-testid="chat-frame" />;
}

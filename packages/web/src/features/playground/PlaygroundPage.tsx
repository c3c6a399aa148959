import { useQuery } from '@tanstack/react-query';
import { TokenStatus } from '@tollway/shared';
import { App } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { apiGet } from '../../lib/api';
import { getStoredUser } from '../../lib/storage';
import { PageHeader } from '../../components/PageHeader';
import { ChatPanel } from './ChatPanel';
import type { ChatSettings } from './chat-stream';
import { SettingsPanel } from './SettingsPanel';
import { useChat } from './useChat';
import './playground.css';

/** Playground: chat with a model through /pg/chat/completions, billed to the user's token. */
export default function PlaygroundPage() {
  const { t } = useTranslation('playground');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [settings, setSettings] = useState<ChatSettings>({
    model: 'gpt-4o-mini',
    group: getStoredUser()?.group ?? 'default',
    temperature: 0,
    maxTokens: 0,
    stream: true,
  });
  const chat = useChat(settings);
  // The playground bills a token: with no enabled one, say so and go to the tokens page.
  const tokens = useQuery({
    queryKey: ['tokens', 'playground-check'],
    queryFn: () => apiGet<{ items: { status: number }[] }>('/api/token/?p=0&size=100'),
  });
  useEffect(() => {
    if (!tokens.isSuccess || (tokens.data?.items ?? []).some((tk) => tk.status === TokenStatus.Enabled)) return;
    void message.error(t('noToken'));
    const timer = setTimeout(() => navigate('/app/tokens'), 1500);
    return () => clearTimeout(timer);
  }, [tokens.isSuccess, tokens.data, message, navigate, t]);

  return (
    <div className="tw-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <div className="tw-pg-layout">
        <SettingsPanel value={settings} onChange={setSettings} />
        <ChatPanel
          turns={chat.turns}
          busy={chat.busy}
          onSend={(text) => void chat.send(text)}
          onStop={chat.stop}
          onClear={chat.clear}
        />
      </div>
    </div>
  );
}

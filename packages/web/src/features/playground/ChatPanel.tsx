import { Avatar, Button, Card, Empty, Flex, Input, Spin, Typography } from 'antd';
import { ClearOutlined, RobotOutlined, SendOutlined, StopOutlined, UserOutlined } from '@ant-design/icons';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatTurn } from './chat-stream';

interface Props {
  turns: ChatTurn[];
  busy: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  onClear: () => void;
}

/** The conversation and the input box; the newest turn stays in view while it streams. */
export function ChatPanel({ turns, busy, onSend, onStop, onClear }: Props) {
  const { t } = useTranslation('playground');
  const [draft, setDraft] = useState('');
  const end = useRef<HTMLDivElement>(null);
  // Braces: newer browsers return a promise from scrollIntoView, and an effect may only return its cleanup.
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [turns]);
  const submit = () => {
    const text = draft.trim();
    if (!text || busy) return;
    setDraft('');
    onSend(text);
  };
  return (
    <Card
      className="tw-pg-chat"
      styles={{ body: { display: 'flex', flexDirection: 'column', height: '100%', padding: 0 } }}
    >
      <div className="tw-pg-messages" data-testid="pg-messages">
        {turns.length === 0 && <Empty description={t('empty')} style={{ marginTop: 80 }} />}
        {turns.map((m, i) => (
          <div
            key={i}
            className={`tw-pg-turn tw-pg-${m.role}`}
            data-testid={`pg-turn-${m.role}`}
            data-status={m.status}
          >
            <Avatar size="small" icon={m.role === 'user' ? <UserOutlined /> : <RobotOutlined />} />
            <div className={`tw-pg-bubble ${m.status === 'error' ? 'tw-pg-error' : ''}`}>
              {m.status === 'loading' ? (
                <Spin size="small" tip={t('thinking')} />
              ) : (
                <Typography.Text style={{ whiteSpace: 'pre-wrap' }}>{m.content}</Typography.Text>
              )}
            </div>
          </div>
        ))}
        <div ref={end} />
      </div>
      <div className="tw-pg-input">
        <Input.TextArea
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onPressEnter={(e) => {
            if (!e.shiftKey) {
              e.preventDefault();
              submit();
            }
          }}
          autoSize={{ minRows: 2, maxRows: 6 }}
          placeholder={t('placeholder')}
          data-testid="pg-input"
        />
        <Flex justify="space-between" style={{ marginTop: 8 }}>
          <Button icon={<ClearOutlined />} onClick={onClear} disabled={busy || turns.length === 0}>
            {t('clear')}
          </Button>
          {busy ? (
            <Button danger icon={<StopOutlined />} onClick={onStop} data-testid="pg-stop">
              {t('stop')}
            </Button>
          ) : (
            <Button
              type="primary"
              icon={<SendOutlined />}
              onClick={submit}
              disabled={!draft.trim()}
              data-testid="pg-send"
            >
              {t('send')}
            </Button>
          )}
        </Flex>
      </div>
    </Card>
  );
}

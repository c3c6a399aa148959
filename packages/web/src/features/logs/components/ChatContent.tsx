import { useState } from 'react';
import { Button, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

/** Longer than this (characters or lines), the text is shown clamped with a button to expand it. */
const CLAMP_CHARS = 400;
const CLAMP_LINES = 6;

interface Props {
  label: string;
  text: string;
  testId: string;
}

/** A logged prompt or answer (LogChatContentEnabled): clamped to a few lines, expandable, copyable. */
export function ChatContent({ label, text, testId }: Props) {
  const { t } = useTranslation('logs');
  const [open, setOpen] = useState(false);
  const long = text.length > CLAMP_CHARS || text.split('\n', CLAMP_LINES + 1).length > CLAMP_LINES;
  return (
    <Flex vertical gap={4} data-testid={testId}>
      <Flex align="center" gap={8}>
        <Typography.Text strong>{label}</Typography.Text>
        <Typography.Text type="secondary" style={{ fontSize: 12 }} copyable={{ text }}>
          {t('detail.chars', { count: text.length })}
        </Typography.Text>
        {long ? (
          <Button
            type="link"
            size="small"
            style={{ padding: 0 }}
            onClick={() => setOpen(!open)}
            data-testid={`${testId}-toggle`}
          >
            {open ? t('detail.collapse') : t('detail.expand')}
          </Button>
        ) : null}
      </Flex>
      <div className={`tw-log-chat${long && !open ? ' tw-log-chat-clamped' : ''}`}>{text}</div>
    </Flex>
  );
}

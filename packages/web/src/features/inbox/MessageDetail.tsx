import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Skeleton, Tag, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatTime } from '../../lib/format-time';
import { RichContent } from '../../components/RichContent';
import { INBOX_KEY, openMessage, UNREAD_KEY } from './api';

/** One message; opening it marks it read, so the list and the bell's count are refreshed. */
export function MessageDetail({ id }: { id: number }) {
  const { t } = useTranslation('inbox');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const msg = useQuery({
    queryKey: [...INBOX_KEY, 'one', id],
    queryFn: () => openMessage(id),
    retry: false,
    enabled: Number.isInteger(id) && id > 0,
  });

  useEffect(() => {
    if (msg.isSuccess) {
      void queryClient.invalidateQueries({ queryKey: UNREAD_KEY });
      void queryClient.invalidateQueries({ queryKey: INBOX_KEY, predicate: (q) => q.queryKey[1] !== 'one' });
    }
  }, [msg.isSuccess, queryClient]);
  useEffect(() => {
    // A missing message: say so and go back to the inbox.
    if (msg.isError || !(Number.isInteger(id) && id > 0)) {
      void message.error(t('missing'));
      navigate('/app/inbox', { replace: true });
    }
  }, [msg.isError, id, message, navigate, t]);

  return (
    <div className="tw-page">
      <Button
        type="link"
        icon={<ArrowLeftOutlined />}
        onClick={() => navigate('/app/inbox')}
        style={{ paddingLeft: 0 }}
      >
        {t('back')}
      </Button>
      <Card data-testid="message-detail">
        {!msg.data ? (
          <Skeleton active />
        ) : (
          <>
            <Typography.Title level={3} style={{ marginTop: 0 }}>
              {msg.data.title}
            </Typography.Title>
            <Typography.Paragraph type="secondary">
              {t('sentAt', { time: formatTime(msg.data.created_at) })}{' '}
              <Tag data-testid="inbox-format">{t(`format.${msg.data.format}`, { defaultValue: msg.data.format })}</Tag>
            </Typography.Paragraph>
            <RichContent content={msg.data.content} format={msg.data.format} testId="message-content" />
          </>
        )}
      </Card>
    </div>
  );
}

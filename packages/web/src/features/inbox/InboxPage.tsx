import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Badge, Card, Empty, List, Result, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { formatTime } from '../../lib/format-time';
import { PageHeader } from '../../components/PageHeader';
import { usePaging } from '../../lib/paging';
import { fetchInbox, INBOX_KEY, previewOf } from './api';
import { MessageDetail } from './MessageDetail';
import './inbox.css';

/** Inbox: the own messages, newest first; /app/inbox/:id shows one message and marks it read. */
export default function InboxPage() {
  const { t } = useTranslation('inbox');
  const { id } = useParams<{ id?: string }>();
  const navigate = useNavigate();
  const { page, pageSize, pagination } = usePaging('message-page-size', (r) => t('pageInfo', r));
  const list = useQuery({
    queryKey: [...INBOX_KEY, page, pageSize],
    queryFn: () => fetchInbox(page, pageSize),
    placeholderData: keepPreviousData,
    enabled: !id,
  });

  if (id) return <MessageDetail id={Number(id)} />;
  return (
    <div className="tw-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <Card>
        {list.isError ? (
          <Result status="warning" title={t('loadFailed')} />
        ) : (
          <List
            data-testid="inbox-list"
            loading={list.isLoading}
            dataSource={list.data?.items ?? []}
            locale={{ emptyText: <Empty description={t('empty')} /> }}
            pagination={pagination(list.data?.total ?? 0)}
            renderItem={(m) => (
              <List.Item
                className={`tw-inbox-item ${m.is_read ? '' : 'tw-inbox-unread'}`}
                onClick={() => navigate(`/app/inbox/${m.id}`)}
                data-testid={`inbox-item-${m.id}`}
              >
                <List.Item.Meta
                  title={
                    <span>
                      {!m.is_read && (
                        <Badge
                          status="processing"
                          text={<Typography.Text type="secondary">{t('unread')}</Typography.Text>}
                          style={{ marginRight: 8 }}
                        />
                      )}
                      <Typography.Text strong={!m.is_read}>{m.title}</Typography.Text>
                    </span>
                  }
                  description={previewOf(m.content, m.format)}
                />
                <Typography.Text type="secondary">{formatTime(m.created_at)}</Typography.Text>
              </List.Item>
            )}
          />
        )}
      </Card>
    </div>
  );
}

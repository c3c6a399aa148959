import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, DatePicker, Flex, Input, Popconfirm, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import type { AdminMessage } from '@tollway/shared';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { attempt } from '../../lib/attempt';
import { formatTime } from '../../lib/format-time';
import { PageHeader } from '../../components/PageHeader';
import { usePaging } from '../../lib/paging';
import { useIsMobile } from '../../lib/useIsMobile';
import { cardColumns, cardLayout } from '../../components/cardTable';
import { deleteMessage, fetchMessages, MESSAGES_KEY, type MessageQuery } from './api';
import { CreateMessageDrawer } from './components/CreateMessageDrawer';
import { EditMessageDrawer } from './components/EditMessageDrawer';

/** Width the message columns scroll at on a desktop. */
const MESSAGES_MIN_WIDTH = 800;

/** Message management (administrators): searchable list, create and edit drawers, delete. */
export default function MessagesPage() {
  const { t } = useTranslation('messages');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { page, pageSize, setPage, pagination } = usePaging('message-page-size', (r) => t('pageInfo', r));
  const [keyword, setKeyword] = useState('');
  const [dates, setDates] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const [filter, setFilter] = useState<Pick<MessageQuery, 'keyword' | 'range'>>({ keyword: '', range: null });
  const [creating, setCreating] = useState(false);
  const [editId, setEditId] = useState<number | null>(null);
  const mobile = useIsMobile();

  const query: MessageQuery = { page, pageSize, ...filter };
  const list = useQuery({
    queryKey: [...MESSAGES_KEY, query],
    queryFn: () => fetchMessages(query),
    placeholderData: keepPreviousData,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: MESSAGES_KEY });

  const search = () => {
    // The date filter is sent only when both dates are picked.
    const range: MessageQuery['range'] =
      dates?.[0] && dates[1] ? [dates[0].startOf('day').toISOString(), dates[1].endOf('day').toISOString()] : null;
    setFilter({ keyword: keyword.trim(), range });
    setPage(1);
  };
  const remove = (id: number) =>
    attempt(async () => {
      await deleteMessage(id);
      void message.success(t('toast.deleted'));
      void refresh();
    });

  return (
    <div className="tw-page">
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="message-create">
            {t('create')}
          </Button>
        }
      />
      <Card>
        <Flex wrap gap={8} style={{ marginBottom: 16 }}>
          <Input
            allowClear
            value={keyword}
            onChange={(e) => setKeyword(e.target.value)}
            onPressEnter={search}
            placeholder={t('keyword')}
            style={{ width: 260, maxWidth: '100%' }}
            data-testid="message-keyword"
          />
          <DatePicker.RangePicker
            style={{ maxWidth: '100%' }}
            value={dates}
            onChange={(v) => setDates(v as [Dayjs | null, Dayjs | null] | null)}
          />
          <Button icon={<SearchOutlined />} onClick={search} data-testid="message-search">
            {t('search')}
          </Button>
        </Flex>
        <Table<AdminMessage>
          rowKey="id"
          data-testid="message-table"
          loading={list.isFetching}
          dataSource={list.data?.items ?? []}
          {...cardLayout(mobile, MESSAGES_MIN_WIDTH)}
          locale={{ emptyText: t('empty') }}
          pagination={pagination(list.data?.total ?? 0)}
          columns={cardColumns<AdminMessage>(
            [
              { title: t('column.id'), dataIndex: 'id', width: 80 },
              { title: t('column.title'), dataIndex: 'title', ellipsis: true },
              {
                title: t('column.format'),
                dataIndex: 'format',
                width: 110,
                render: (f: string) => (
                  <Tag color={f === 'html' ? 'orange' : 'blue'} data-testid="message-format-tag">
                    {t(`format.${f}`, { defaultValue: f })}
                  </Tag>
                ),
              },
              { title: t('column.created'), dataIndex: 'created_at', width: 180, render: (v: number) => formatTime(v) },
              { title: t('column.recipients'), key: 'total', width: 110, render: (_, m) => m.stats.total_recipients },
              { title: t('column.read'), key: 'read', width: 100, render: (_, m) => m.stats.read_count },
              {
                title: t('column.actions'),
                key: 'actions',
                width: 150,
                fixed: 'right',
                // Only the author (or root) may change a message; the server refuses anyone else.
                render: (_, m) =>
                  m.editable ? (
                    <Space>
                      <Button size="small" onClick={() => setEditId(m.id)} data-testid={`message-edit-${m.id}`}>
                        {t('action.edit')}
                      </Button>
                      <Popconfirm title={t('confirmDelete')} onConfirm={() => remove(m.id)}>
                        <Button size="small" danger data-testid={`message-delete-${m.id}`}>
                          {t('action.delete')}
                        </Button>
                      </Popconfirm>
                    </Space>
                  ) : (
                    <Tooltip title={t('readOnlyHint')}>
                      <Typography.Text type="secondary" data-testid={`message-readonly-${m.id}`}>
                        {t('readOnly')}
                      </Typography.Text>
                    </Tooltip>
                  ),
              },
            ],
            mobile,
          )}
        />
      </Card>
      <CreateMessageDrawer
        open={creating}
        onClose={() => setCreating(false)}
        onSaved={() => {
          setCreating(false);
          void refresh();
        }}
      />
      <EditMessageDrawer
        id={editId}
        onClose={() => setEditId(null)}
        onSaved={() => {
          setEditId(null);
          void refresh();
        }}
      />
    </div>
  );
}

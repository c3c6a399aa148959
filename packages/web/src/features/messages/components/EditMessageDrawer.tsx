import { zodResolver } from '@hookform/resolvers/zod';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { App, Descriptions, Form, Table, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { MessageRecipient } from '@tollway/shared';
import { formatTime } from '../../../lib/format-time';
import { useSubmit } from '../../../lib/useSubmit';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { fetchMessage, fetchRecipients, updateMessage } from '../api';
import { EMPTY_MESSAGE, messageFormSchema, type MessageForm } from '../schema';
import { MessageFields } from './MessageFields';

/** Edit drawer: id, created time, recipient and read counts, the fields, and the recipients 10 per page. */
export function EditMessageDrawer({
  id,
  onClose,
  onSaved,
}: {
  id: number | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation('messages');
  const { message } = App.useApp();
  const { loading, run } = useSubmit();
  const [page, setPage] = useState(1);
  const msg = useQuery({
    queryKey: ['admin-message', id],
    queryFn: () => fetchMessage(id!),
    enabled: id !== null,
    gcTime: 0,
  });
  const recips = useQuery({
    queryKey: ['admin-message', id, 'recipients', page],
    queryFn: () => fetchRecipients(id!, page),
    enabled: id !== null,
    placeholderData: keepPreviousData,
  });
  const { control, handleSubmit, reset } = useForm<MessageForm>({
    resolver: zodResolver(messageFormSchema),
    defaultValues: EMPTY_MESSAGE,
  });
  useEffect(() => {
    if (msg.data) reset({ title: msg.data.title, content: msg.data.content, format: msg.data.format, user_ids: [] });
  }, [msg.data, reset]);
  useEffect(() => setPage(1), [id]);

  const submit = handleSubmit((values) =>
    run(async () => {
      await updateMessage(id!, values);
      void message.success(t('toast.updated'));
      onSaved();
    }),
  );
  const m = msg.data;
  return (
    <EditorDrawer
      open={id !== null}
      onClose={onClose}
      title={t('drawer.edit')}
      width={720}
      saving={loading}
      loading={!m}
      onSubmit={() => void submit()}
      testid="message-edit-drawer"
      submitTestid="message-submit"
    >
      {m ? (
        <>
          <Descriptions size="small" column={2} bordered style={{ marginBottom: 16 }} data-testid="message-meta">
            <Descriptions.Item label={t('field.id')}>{m.id}</Descriptions.Item>
            <Descriptions.Item label={t('field.created')}>{formatTime(m.created_at)}</Descriptions.Item>
            <Descriptions.Item label={t('field.total')}>{m.stats.total_recipients}</Descriptions.Item>
            <Descriptions.Item label={t('field.read')}>{m.stats.read_count}</Descriptions.Item>
          </Descriptions>
          <Form layout="vertical" onFinish={() => void submit()}>
            <MessageFields control={control} />
          </Form>
          <Table<MessageRecipient>
            rowKey="user_id"
            size="small"
            data-testid="message-recipient-table"
            loading={recips.isFetching}
            dataSource={recips.data?.items ?? []}
            pagination={{
              current: page,
              pageSize: 10,
              total: recips.data?.total ?? 0,
              onChange: setPage,
              showSizeChanger: false,
              showTotal: (total, [start, end]) => t('pageInfo', { start, end, total }),
            }}
            columns={[
              { title: 'ID', dataIndex: 'user_id', width: 80 },
              { title: t('recipients.user'), dataIndex: 'username' },
              { title: t('recipients.displayName'), dataIndex: 'display_name' },
              {
                title: t('recipients.readAt'),
                dataIndex: 'read_at',
                render: (v: number | null) => (v ? formatTime(v) : <Tag>{t('recipients.unread')}</Tag>),
              },
            ]}
          />
        </>
      ) : null}
    </EditorDrawer>
  );
}

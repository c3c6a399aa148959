import { Tag, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { TaskRow } from './api';
import { cells } from './cells';
import { TaskListPage } from './TaskListPage';

/** Music default range: from the start of today. */
const sinceToday = (): [dayjs.Dayjs, null] => [dayjs().startOf('day'), null];

/** /app/logs/tasks: music task logs; the channel column for administrators. */
export default function MusicLogsPage() {
  const { t } = useTranslation('tasks');
  const columns = (admin: boolean): TableColumnsType<TaskRow> => [
    { key: 'submit', title: t('col.submitTime'), dataIndex: 'submit_time', width: 165, render: cells.time },
    { key: 'finish', title: t('col.finishTime'), dataIndex: 'finish_time', width: 165, render: cells.time },
    { key: 'duration', title: t('col.duration'), width: 90, render: (_, r) => cells.duration(t, r, false) },
    ...(admin ? [{ key: 'channel', title: t('col.channel'), dataIndex: 'channel_id', width: 80, render: cells.channel }] : []),
    {
      key: 'platform',
      title: t('col.platform'),
      dataIndex: 'platform',
      width: 90,
      render: (p: string) => <Tag color={p === 'suno' ? 'green' : 'default'}>{t(`platform.${p}`, { defaultValue: p || '—' })}</Tag>,
    },
    { key: 'action', title: t('col.type'), dataIndex: 'action', width: 110, render: (a: string) => cells.action(t, a) },
    { key: 'id', title: t('col.taskId'), dataIndex: 'task_id', width: 160, render: cells.id },
    { key: 'status', title: t('col.status'), dataIndex: 'status', width: 100, render: (s: string) => cells.state(t, s) },
    { key: 'progress', title: t('col.progress'), dataIndex: 'progress', width: 120, render: cells.progress },
    { key: 'fail', title: t('col.failReason'), dataIndex: 'fail_reason', width: 200, render: (f: string) => cells.text(f, true) },
  ];
  return <TaskListPage<TaskRow> kind="music" title={t('music.title')} subtitle={t('music.subtitle')} idLabel={t('filter.taskId')} defaultRange={sinceToday} columns={columns} />;
}

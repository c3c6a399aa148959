import type { TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { TaskRow } from './api';
import { cells } from './cells';
import { failText, taskMedia } from './media';
import { PlatformTag } from './PlatformTag';
import { taskDurationColor } from './status';
import { TaskListPage } from './TaskListPage';

/** Music default range: from the start of today. */
const sinceToday = (): [dayjs.Dayjs, null] => [dayjs().startOf('day'), null];

/**
 * /app/logs/tasks: music and video task logs; state, progress and results first (the columns a wide table shows
 * without scrolling); the channel column for administrators.
 */
export default function MusicLogsPage() {
  const { t } = useTranslation('tasks');
  const columns = (admin: boolean): TableColumnsType<TaskRow> => [
    { key: 'submit', title: t('col.submitTime'), dataIndex: 'submit_time', width: 165, render: cells.time },
    { key: 'duration', title: t('col.duration'), width: 90, render: (_, r) => cells.duration(t, r, taskDurationColor) },
    ...(admin
      ? [{ key: 'channel', title: t('col.channel'), dataIndex: 'channel_id', width: 80, render: cells.channel }]
      : []),
    {
      key: 'platform',
      title: t('col.platform'),
      dataIndex: 'platform',
      width: 100,
      render: (p: string) => <PlatformTag platform={p} />,
    },
    { key: 'action', title: t('col.type'), dataIndex: 'action', width: 110, render: (a: string) => cells.action(t, a) },
    {
      key: 'status',
      title: t('col.status'),
      dataIndex: 'status',
      width: 100,
      render: (s: string) => cells.state(t, s),
    },
    {
      key: 'progress',
      title: t('col.progress'),
      dataIndex: 'progress',
      width: 120,
      render: (p: string, r) => cells.progress(p, r.status),
    },
    { key: 'result', title: t('col.result'), width: 250, render: (_, r) => cells.results(taskMedia(r)) },
    { key: 'fail', title: t('col.failReason'), width: 200, render: (_, r) => cells.text(failText(r), true) },
    { key: 'id', title: t('col.taskId'), dataIndex: 'task_id', width: 160, render: cells.id },
    { key: 'finish', title: t('col.finishTime'), dataIndex: 'finish_time', width: 165, render: cells.time },
  ];
  return (
    <TaskListPage<TaskRow>
      kind="music"
      title={t('music.title')}
      subtitle={t('music.subtitle')}
      idLabel={t('filter.taskId')}
      defaultRange={sinceToday}
      columns={columns}
    />
  );
}

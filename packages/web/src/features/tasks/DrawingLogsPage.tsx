import { Tag, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { MjRow } from './api';
import { cells } from './cells';
import type { TaskMedia } from './media';
import { durationColor, SUBMIT_CODES } from './status';
import { TaskListPage } from './TaskListPage';

/** A drawing's results: its image, and the video of a video action. */
const drawingMedia = (r: MjRow): TaskMedia[] => [
  ...(r.video_url ? [{ kind: 'video' as const, url: r.video_url }] : []),
  ...(r.image_url ? [{ kind: 'image' as const, url: r.image_url, title: r.prompt }] : []),
];

/** Drawing default range: the last 30 days. */
const lastThirtyDays = (): [dayjs.Dayjs, null] => [dayjs().subtract(30, 'day').startOf('day'), null];

/** /app/logs/drawing: drawing task logs; the channel column for administrators. */
export default function DrawingLogsPage() {
  const { t } = useTranslation('tasks');
  const columns = (admin: boolean): TableColumnsType<MjRow> => [
    { key: 'submit', title: t('col.submitTime'), dataIndex: 'submit_time', width: 165, render: cells.time },
    { key: 'duration', title: t('col.duration'), width: 90, render: (_, r) => cells.duration(t, r, durationColor) },
    ...(admin
      ? [{ key: 'channel', title: t('col.channel'), dataIndex: 'channel_id', width: 80, render: cells.channel }]
      : []),
    {
      key: 'action',
      title: t('col.action'),
      dataIndex: 'action',
      width: 120,
      render: (a: string) => cells.action(t, a),
    },
    { key: 'id', title: t('col.mjId'), dataIndex: 'mj_id', width: 160, render: cells.id },
    {
      key: 'code',
      title: t('col.code'),
      dataIndex: 'code',
      width: 100,
      render: (c: number) => {
        const known = SUBMIT_CODES[c];
        return <Tag color={known?.color ?? 'default'}>{known ? t(`code.${known.key}`) : t('code.unknown')}</Tag>;
      },
    },
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
    { key: 'image', title: t('col.image'), width: 180, render: (_, r) => cells.results(drawingMedia(r)) },
    { key: 'prompt', title: t('col.prompt'), dataIndex: 'prompt', width: 240, render: (p: string) => cells.text(p) },
    {
      key: 'promptEn',
      title: t('col.promptEn'),
      dataIndex: 'prompt_en',
      width: 240,
      render: (p: string) => cells.text(p),
    },
    {
      key: 'fail',
      title: t('col.failReason'),
      dataIndex: 'fail_reason',
      width: 200,
      render: (f: string) => cells.text(f, true),
    },
  ];
  return (
    <TaskListPage<MjRow>
      kind="drawing"
      title={t('drawing.title')}
      subtitle={t('drawing.subtitle')}
      idLabel={t('filter.mjId')}
      defaultRange={lastThirtyDays}
      columns={columns}
    />
  );
}

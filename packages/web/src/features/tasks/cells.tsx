import { Progress, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { formatTime } from '../../lib/format-time';
import type { TaskMedia } from './media';
import { TaskResults } from './TaskResults';
import { actionColor, durationOf, isRunning, progressPercent, progressStatus, stateOf } from './status';

const dash = <Typography.Text type="secondary">—</Typography.Text>;

/** Cells shared by the drawing and music task tables. */
export const cells = {
  time: (epoch: number) => (epoch > 0 ? <span className="tw-log-num">{formatTime(epoch)}</span> : dash),
  /** Seconds from submit to finish, coloured by the page's rule. */
  duration: (t: TFunction, r: { submit_time: number; finish_time: number }, color: (seconds: number) => string) => {
    const s = durationOf(r);
    if (s === undefined) return dash;
    return <Tag color={color(s)}>{t('value.seconds', { value: s })}</Tag>;
  },
  channel: (id: number | undefined) => (id ? <Tag style={{ margin: 0 }}>#{id}</Tag> : dash),
  action: (t: TFunction, action: string) =>
    action ? <Tag color={actionColor(action)}>{t(`action.${action}`, { defaultValue: action })}</Tag> : dash,
  state: (t: TFunction, status: string) => {
    const s = stateOf(status);
    return <Tag color={s.color}>{t(`state.${s.key}`)}</Tag>;
  },
  /** A bar of the task's progress, coloured by its state; an empty bar while a running task reports none. */
  progress: (progress: string, status: string) =>
    progress || isRunning(status) ? (
      <Progress
        percent={progressPercent(progress)}
        status={progressStatus(status)}
        size="small"
        style={{ width: 100, margin: 0 }}
        data-testid="task-progress"
      />
    ) : (
      dash
    ),
  id: (id: string) =>
    id ? (
      <Typography.Text copyable={{ text: id }} ellipsis style={{ maxWidth: 150 }} className="tw-log-num">
        {id}
      </Typography.Text>
    ) : (
      dash
    ),
  /** Clamped to two lines: the whole text in a tooltip, and an expand link. */
  text: (text: string, danger = false) =>
    text ? (
      <Typography.Paragraph
        ellipsis={{ rows: 2, tooltip: text, expandable: 'collapsible' }}
        type={danger ? 'danger' : undefined}
        style={{ margin: 0, maxWidth: 230 }}
        data-testid={danger ? 'task-fail-reason' : undefined}
      >
        {text}
      </Typography.Paragraph>
    ) : (
      dash
    ),
  /** Result files: thumbnails opening a preview, song and video players. */
  results: (media: TaskMedia[]) => <TaskResults media={media} empty={dash} />,
};

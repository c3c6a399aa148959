import { Image, Progress, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { formatTime } from '../../lib/format-time';
import { actionColor, durationColor, durationOf, progressPercent, stateOf } from './status';

const dash = <Typography.Text type="secondary">—</Typography.Text>;

/** Cells shared by the drawing and music task tables. */
export const cells = {
  time: (epoch: number) => (epoch > 0 ? <span className="tw-log-num">{formatTime(epoch)}</span> : dash),
  duration: (t: TFunction, r: { submit_time: number; finish_time: number }, colored: boolean) => {
    const s = durationOf(r);
    if (s === undefined) return dash;
    return <Tag color={colored ? durationColor(s) : 'default'}>{t('value.seconds', { value: s })}</Tag>;
  },
  channel: (id: number | undefined) => (id ? <Tag style={{ margin: 0 }}>#{id}</Tag> : dash),
  action: (t: TFunction, action: string) => (action ? <Tag color={actionColor(action)}>{t(`action.${action}`, { defaultValue: action })}</Tag> : dash),
  state: (t: TFunction, status: string) => {
    const s = stateOf(status);
    return <Tag color={s.color}>{t(`state.${s.key}`)}</Tag>;
  },
  progress: (progress: string) => (progress ? <Progress percent={progressPercent(progress)} size="small" style={{ width: 100, margin: 0 }} /> : dash),
  id: (id: string) =>
    id ? (
      <Typography.Text copyable={{ text: id }} ellipsis style={{ maxWidth: 150 }} className="tw-log-num">
        {id}
      </Typography.Text>
    ) : (
      dash
    ),
  text: (text: string, danger = false) =>
    text ? (
      <Typography.Paragraph ellipsis={{ rows: 2, tooltip: text }} type={danger ? 'danger' : undefined} style={{ margin: 0, maxWidth: 230 }}>
        {text}
      </Typography.Paragraph>
    ) : (
      dash
    ),
  /** A thumbnail that opens the full image in a preview. */
  image: (url: string, alt: string) => (url ? <Image src={url} alt={alt} width={48} height={48} style={{ objectFit: 'cover', borderRadius: 6 }} data-testid="task-image" /> : dash),
};

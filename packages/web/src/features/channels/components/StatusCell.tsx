import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Channel, TagRow } from '../api';
import { formatTime } from '../../../lib/format-time';
import { ChannelStatus as ChannelStatusCode } from '@tollway/shared';
import { parseOtherInfo } from '../model/status';

/** Status tag; an automatically disabled channel shows its reason and time on hover. */
export function ChannelStatus({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channels');
  const testId = `channel-status-${channel.id}`;
  const info = channel.channel_info;
  const keyHint =
    info?.is_multi_key && info.multi_key_size > 0
      ? t('status.keysEnabled', {
          enabled: info.multi_key_size - Object.keys(info.multi_key_status_list ?? {}).length,
          total: info.multi_key_size,
        })
      : undefined;
  if (channel.status === ChannelStatusCode.Enabled) {
    return (
      <Tooltip title={keyHint}>
        <Tag color="success" data-testid={testId}>
          {t('status.enabled')}
        </Tag>
      </Tooltip>
    );
  }
  if (channel.status === ChannelStatusCode.ManuallyDisabled) {
    return (
      <Tag color="default" data-testid={testId}>
        {t('status.disabled')}
      </Tag>
    );
  }
  if (channel.status === ChannelStatusCode.AutoDisabled) {
    const { reason, time } = parseOtherInfo(channel.other_info);
    const title = (
      <div className="tw-ch-reason">
        <div>
          <b>{t('status.reason')}</b> {reason || t('status.noReason')}
        </div>
        {time ? (
          <div>
            <b>{t('status.time')}</b> {formatTime(time)}
          </div>
        ) : null}
        {keyHint ? <div>{keyHint}</div> : null}
      </div>
    );
    return (
      <Tooltip title={title}>
        <Tag color="warning" data-testid={testId} className="tw-ch-help">
          {t('status.auto')}
        </Tag>
      </Tooltip>
    );
  }
  return <Tag data-testid={testId}>{t('status.unknown')}</Tag>;
}

/** A tag row counts as enabled when any child is enabled. */
export function TagStatus({ row }: { row: TagRow }) {
  const { t } = useTranslation('channels');
  return (
    <Tooltip title={t('status.tagCount', { enabled: row.enabled_count, total: row.channel_count })}>
      <Tag
        color={row.status === ChannelStatusCode.Enabled ? 'success' : 'default'}
        data-testid={`channel-tag-status-${row.tag}`}
      >
        {row.status === ChannelStatusCode.Enabled ? t('status.enabled') : t('status.disabled')} {row.enabled_count}/
        {row.channel_count}
      </Tag>
    </Tooltip>
  );
}

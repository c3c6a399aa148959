import { Tag, Tooltip } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import type { Channel, TagRow } from '../api';

type Health = NonNullable<Channel['health']>;
type State = Health['state'];

const COLOR: Record<State, string> = { closed: 'success', half_open: 'warning', open: 'error' };
/** A tag row shows its worst child. */
const RANK: Record<State, number> = { closed: 0, half_open: 1, open: 2 };

function Details({ h, t }: { h: Health; t: TFunction }) {
  const keys = Object.entries(h.keys);
  return (
    <div className="tw-ch-reason">
      {h.state === 'open' ? <div>{t('health.openUntil', { time: formatTime(h.open_until) })}</div> : null}
      {h.state === 'half_open' ? <div>{t('health.probing')}</div> : null}
      <div>{t('health.errorRate', { rate: (h.error_rate * 100).toFixed(1), count: h.requests })}</div>
      <div>{h.p50_latency_ms ? t('health.p50', { ms: h.p50_latency_ms }) : t('health.noLatency')}</div>
      {keys.length ? (
        <div>
          {t('health.keys', { list: keys.map(([i, s]) => `#${Number(i) + 1} ${t(`health.state.${s}`)}`).join(', ') })}
        </div>
      ) : null}
    </div>
  );
}

/** The circuit breaker of a channel: closed, open (until when) or half-open, with error rate and median latency on hover. */
export function ChannelHealthCell({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channels');
  const h = channel.health;
  if (!h) return null;
  const keyTrouble = h.state === 'closed' && Object.keys(h.keys).length > 0;
  return (
    <Tooltip title={<Details h={h} t={t} />}>
      <Tag
        color={keyTrouble ? 'gold' : COLOR[h.state]}
        data-testid={`channel-health-${channel.id}`}
        data-state={h.state}
        className="tw-ch-help"
      >
        {h.state === 'open'
          ? t('health.openShort', { time: formatTime(h.open_until).slice(-8) })
          : t(`health.state.${h.state}`)}
      </Tag>
    </Tooltip>
  );
}

/** A tag row: its worst child's state. */
export function TagHealthCell({ row }: { row: TagRow }) {
  const { t } = useTranslation('channels');
  const worst = row.children.reduce<State>(
    (w, c) => (c.health && RANK[c.health.state] > RANK[w] ? c.health.state : w),
    'closed',
  );
  return <Tag color={COLOR[worst]}>{t(`health.state.${worst}`)}</Tag>;
}

import { Flex, Tag, Tooltip } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import type { Channel, TagRow } from '../api';
import { CacheHitCell, type PromptCacheRow } from './CacheHitCell';
import { parseOtherInfo } from '../model/status';

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

/**
 * The circuit breaker of a channel: closed, open (until when) or half-open, with error rate and median latency on
 * hover; below it the share of today's prompt tokens the provider read from its prompt cache.
 */
export function ChannelHealthCell({ channel, cache }: { channel: Channel; cache?: PromptCacheRow }) {
  return (
    <Flex vertical gap={2} align="flex-start">
      <BreakerTag channel={channel} />
      {cache && cache.prompt_tokens > 0 ? <CacheHitCell row={cache} id={channel.id} /> : null}
    </Flex>
  );
}

function BreakerTag({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channels');
  const h = channel.health;
  const { testError } = parseOtherInfo(channel.other_info);
  // The breaker has not opened (a permanent failure, another node's breaker, a restart) but the last test failed.
  if (testError && (!h || h.state === 'closed')) {
    return (
      <Tooltip title={testError}>
        <Tag color="error" data-testid={`channel-health-${channel.id}`} data-state="test_failed" className="tw-ch-help">
          {t('health.testFailed')}
        </Tag>
      </Tooltip>
    );
  }
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
        {/* The state alone (the column stays narrow); until when an open breaker holds is in the hover. */}
        {t(`health.state.${h.state}`)}
      </Tag>
    </Tooltip>
  );
}

/** A tag row: its worst child's state (a child whose last test failed counts as open). */
export function TagHealthCell({ row }: { row: TagRow }) {
  const { t } = useTranslation('channels');
  const stateOf = (c: Channel): State =>
    parseOtherInfo(c.other_info).testError ? 'open' : (c.health?.state ?? 'closed');
  const worst = row.children.reduce<State>((w, c) => (RANK[stateOf(c)] > RANK[w] ? stateOf(c) : w), 'closed');
  return <Tag color={COLOR[worst]}>{t(`health.state.${worst}`)}</Tag>;
}

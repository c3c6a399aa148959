import { LogType } from '@tollway/shared';
import { RetweetOutlined } from '@ant-design/icons';
import { Flex, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import type { TFunction } from 'i18next';
import { trimNumber } from '../../../lib/price';
import type { LogRow } from '../api';
import { formatTime } from '../../../lib/format-time';
import { callTimeColor, formatFrt, frtColor, isFixedPrice, parseOther } from '../format';
import type { LogColumn } from '../hooks';
import { logRowText } from '../../../lib/server-text';
import { UserInfoPopover } from './UserInfoPopover';

const TYPE_COLORS: Record<number, string> = {
  [LogType.Topup]: 'cyan',
  [LogType.Consume]: 'green',
  [LogType.Manage]: 'orange',
  [LogType.System]: 'purple',
  [LogType.CheckIn]: 'blue',
  [LogType.Error]: 'red',
};

export function LogTypeTag({ type, t }: { type: number; t: TFunction }) {
  const known = type in TYPE_COLORS;
  const label = known ? t(`type.${type}`) : t('type.unknown');
  return (
    <Tag color={TYPE_COLORS[type] ?? 'default'} className="tw-log-ellipsis-tag" title={label}>
      {label}
    </Tag>
  );
}

const dash = <Typography.Text type="secondary">—</Typography.Text>;

/**
 * Base column widths (px) chosen so every column (with retries and IP) fits a 1440 px screen beside the sidebar; the
 * details take the rest. Names fill their column, which grows on wider screens (GROW in LogsPage).
 */
const W = {
  time: 100,
  channel: 76,
  retry: 56,
  username: 88,
  token: 96,
  type: 88,
  model: 120,
  useTime: 88,
  tokens: 96,
  quota: 84,
  ip: 96,
};

/** Every column of the log table, keyed for the visibility settings. */
export function logColumns(
  t: TFunction,
  quota: (n: number) => string,
  mobile: boolean,
): (TableColumnsType<LogRow>[number] & { key: LogColumn })[] {
  const all: (TableColumnsType<LogRow>[number] & { key: LogColumn })[] = [
    {
      key: 'time',
      title: t('col.time'),
      dataIndex: 'created_at',
      width: W.time,
      render: (n: number) => {
        // Date over time keeps the column narrow; the full text is the tooltip.
        const text = formatTime(n);
        const [date, time] = text.split(' ');
        return (
          <Tooltip title={text}>
            <Flex vertical className="tw-log-num">
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {date}
              </Typography.Text>
              <span>{time}</span>
            </Flex>
          </Tooltip>
        );
      },
    },
    {
      key: 'channel',
      title: t('col.channel'),
      width: W.channel,
      render: (_, r) =>
        r.channel ? (
          <Tooltip title={r.channel_name ? `#${r.channel} ${r.channel_name}` : undefined}>
            <Flex vertical gap={2} align="flex-start" style={{ minWidth: 0 }}>
              <Tag style={{ margin: 0 }}>#{r.channel}</Tag>
              {r.channel_name ? (
                <Typography.Text ellipsis type="secondary" style={{ maxWidth: '100%', fontSize: 12 }}>
                  {r.channel_name}
                </Typography.Text>
              ) : null}
            </Flex>
          </Tooltip>
        ) : (
          dash
        ),
    },
    {
      key: 'retry',
      title: t('col.retry'),
      width: W.retry,
      // The channels a call went through, in order (admin_info.use_channel): more than one means it was retried.
      render: (_, r) => {
        const used = parseOther(r.other).admin_info?.use_channel ?? [];
        if (used.length < 2) return dash;
        const path = used.map((c) => `#${String(c)}`).join(' → ');
        // A narrow cell: the retry count; the channel path is the tooltip (and in the expanded details).
        return (
          <Tooltip title={t('value.retryHint', { count: used.length - 1, path })}>
            <Tag
              color="orange"
              icon={<RetweetOutlined />}
              style={{ margin: 0 }}
              data-testid={`log-retry-${r.id}`}
              data-path={path}
            >
              {used.length - 1}
            </Tag>
          </Tooltip>
        );
      },
    },
    {
      key: 'username',
      title: t('col.username'),
      dataIndex: 'username',
      width: W.username,
      // The name opens the user's account card (the column is for administrators only).
      render: (u: string, r) =>
        u && r.user_id ? (
          <UserInfoPopover id={r.user_id} username={u} quota={quota} />
        ) : u ? (
          <Typography.Text ellipsis={{ tooltip: u }}>{u}</Typography.Text>
        ) : (
          dash
        ),
    },
    {
      key: 'token',
      title: t('col.token'),
      dataIndex: 'token_name',
      width: W.token,
      // The group the call was billed in sits under the token it used.
      render: (n: string, r) =>
        n || r.group ? (
          <Flex vertical gap={2} align="flex-start" style={{ minWidth: 0 }}>
            {n ? (
              <Tag className="tw-log-ellipsis-tag" title={n}>
                {n}
              </Tag>
            ) : null}
            {r.group ? (
              <Tag color="blue" className="tw-log-ellipsis-tag" title={r.group} data-testid={`log-group-${r.id}`}>
                {r.group}
              </Tag>
            ) : null}
          </Flex>
        ) : (
          dash
        ),
    },
    {
      key: 'type',
      title: t('col.type'),
      dataIndex: 'type',
      width: W.type,
      render: (v: number) => <LogTypeTag type={v} t={t} />,
    },
    {
      key: 'model',
      title: t('col.model'),
      dataIndex: 'model_name',
      width: W.model,
      render: (m: string, r) => {
        if (!m) return dash;
        const o = parseOther(r.other);
        const mapped = o.is_model_mapped && o.upstream_model_name && o.upstream_model_name !== m;
        return (
          <Flex vertical gap={2} align="flex-start" style={{ minWidth: 0 }}>
            <Typography.Text ellipsis={{ tooltip: m }} style={{ maxWidth: '100%' }}>
              {m}
            </Typography.Text>
            {mapped ? (
              <Tooltip title={t('value.mappedHint', { from: m, to: o.upstream_model_name })}>
                <Tag
                  color="gold"
                  bordered={false}
                  style={{ margin: 0, fontSize: 11 }}
                  data-testid={`log-mapped-${r.id}`}
                >
                  {t('value.mapped')} → {o.upstream_model_name}
                </Tag>
              </Tooltip>
            ) : null}
          </Flex>
        );
      },
    },
    {
      key: 'useTime',
      title: t('col.useTime'),
      width: W.useTime,
      render: (_, r) => {
        if (r.type !== LogType.Consume && r.type !== LogType.Error) return dash;
        const o = parseOther(r.other);
        return (
          <div className="tw-log-tags">
            <Tag color={callTimeColor(r.use_time)}>{t('value.seconds', { value: r.use_time })}</Tag>
            {typeof o.frt === 'number' && o.frt > 0 ? (
              <Tag color={frtColor(o.frt)}>{t('value.frt', { value: formatFrt(o.frt) })}</Tag>
            ) : null}
            <Tag color={r.is_stream ? 'geekblue' : 'default'} bordered={false}>
              {r.is_stream ? t('value.stream') : t('value.nonStream')}
            </Tag>
          </div>
        );
      },
    },
    {
      key: 'tokens',
      title: t('col.tokens'),
      width: W.tokens,
      align: 'right',
      render: (_, r) =>
        r.type === LogType.Consume || r.prompt_tokens || r.completion_tokens ? (
          <Tooltip title={t('value.tokensHint', { prompt: r.prompt_tokens, completion: r.completion_tokens })}>
            <span className="tw-log-num">
              {r.prompt_tokens} <Typography.Text type="secondary">/</Typography.Text> {r.completion_tokens}
            </span>
          </Tooltip>
        ) : (
          dash
        ),
    },
    {
      key: 'quota',
      title: t('col.quota'),
      dataIndex: 'quota',
      width: W.quota,
      align: 'right',
      render: (n: number, r) =>
        r.type === LogType.Consume || n ? <span className="tw-log-num">{quota(n)}</span> : dash,
    },
    {
      key: 'ip',
      title: t('col.ip'),
      dataIndex: 'ip',
      width: W.ip,
      render: (ip?: string) =>
        ip ? (
          <Typography.Text ellipsis={{ tooltip: ip }} className="tw-log-num">
            {ip}
          </Typography.Text>
        ) : (
          dash
        ),
    },
    {
      key: 'details',
      title: t('col.details'),
      // No width: the details take the room the other columns leave.
      render: (_, r) => {
        const o = parseOther(r.other);
        let text = logRowText(r, quota);
        if (r.type === LogType.Consume && !text) {
          const group = trimNumber(typeof o.group_ratio === 'number' ? o.group_ratio : 1);
          if (isFixedPrice(o)) text = t('value.priceSummary', { price: trimNumber(o.model_price!), group });
          else if (typeof o.model_ratio === 'number')
            text = t('value.ratioSummary', { model: trimNumber(o.model_ratio), group });
        }
        if (!text) return dash;
        return (
          <Typography.Paragraph
            ellipsis={{ rows: 2, tooltip: text }}
            type={r.type === LogType.Error ? 'danger' : undefined}
            style={{ margin: 0 }}
          >
            {text}
          </Typography.Paragraph>
        );
      },
    },
  ];
  if (!mobile) return all;
  // Phone cards: what was called and what it cost first.
  const order: LogColumn[] = [
    'time',
    'model',
    'quota',
    'type',
    'useTime',
    'tokens',
    'token',
    'username',
    'channel',
    'retry',
    'ip',
    'details',
  ];
  return order.map((k) => all.find((c) => c.key === k)!).filter(Boolean);
}

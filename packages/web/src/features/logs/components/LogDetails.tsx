import { Descriptions, Flex, Tag, Typography } from 'antd';
import type { DescriptionsProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { DEFAULT_QUOTA_PER_UNIT, LogType } from '@tollway/shared';
import { trimNumber, usd } from '../../../lib/price';
import type { LogRow } from '../api';
import { costFormula, formatFrt, isFixedPrice, parseOther } from '../format';
import { ChatContent } from './ChatContent';
import { logRowText } from '../../../lib/server-text';

interface Props {
  row: LogRow;
  admin: boolean;
  quotaPerUnit: number | undefined;
  /** Width of the visible table area; the panel sticks to its left edge while the table scrolls. */
  width?: number;
}

const present = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The expanded row: ratios, the cost formula, mapping, errors, content and (admins) the channels tried. */
export function LogDetails({ row, admin, quotaPerUnit, width }: Props) {
  const { t } = useTranslation('logs');
  const o = parseOther(row.other);
  const items: NonNullable<DescriptionsProps['items']> = [];
  const add = (key: string, label: string, value: React.ReactNode, span?: number) =>
    items.push({ key, label, children: value, span });

  if (isFixedPrice(o)) {
    add('price', t('detail.modelPrice'), `$${trimNumber(o.model_price!)}`);
  } else {
    if (present(o.model_ratio)) add('mr', t('detail.modelRatio'), trimNumber(o.model_ratio));
    if (present(o.completion_ratio)) add('cr', t('detail.completionRatio'), trimNumber(o.completion_ratio));
    if (present(o.cache_tokens) && o.cache_tokens > 0) {
      add('ct', t('detail.cacheTokens'), o.cache_tokens);
      if (present(o.cache_ratio)) add('cra', t('detail.cacheRatio'), trimNumber(o.cache_ratio));
    }
    if (present(o.cache_creation_tokens) && o.cache_creation_tokens > 0) {
      add('cct', t('detail.cacheCreationTokens'), o.cache_creation_tokens);
      if (present(o.cache_creation_ratio))
        add('ccr', t('detail.cacheCreationRatio'), trimNumber(o.cache_creation_ratio));
    }
  }
  if (present(o.group_ratio)) add('gr', t('detail.groupRatio'), trimNumber(o.group_ratio));
  if (present(o.frt) && o.frt > 0) add('frt', t('detail.frt'), formatFrt(o.frt));
  if (o.is_model_mapped && o.upstream_model_name)
    add('up', t('detail.upstreamModel'), <span className="tw-log-mono">{o.upstream_model_name}</span>);
  if (o.fallback_from) {
    const reason = t(`detail.fallbackReason.${o.fallback_reason ?? ''}`, { defaultValue: o.fallback_reason ?? '' });
    add('fb', t('detail.fallback'), t('detail.fallbackValue', { from: o.fallback_from, reason }));
  }
  if (o.reasoning_effort) add('re', t('detail.reasoning'), o.reasoning_effort);
  if (o.cache_hit)
    add(
      'hit',
      t('detail.cacheHit'),
      <Tag color="green" style={{ margin: 0 }} data-testid={`log-cache-hit-${row.id}`}>
        {t('detail.cacheHitValue')}
      </Tag>,
    );
  if (present(o.status_code)) add('sc', t('detail.statusCode'), o.status_code);
  if (o.error_type) add('et', t('detail.errorType'), o.error_type);
  if (o.error_code !== undefined && o.error_code !== '') add('ec', t('detail.errorCode'), String(o.error_code));
  const used = admin ? o.admin_info?.use_channel : undefined;
  if (Array.isArray(used) && used.length > 0) {
    add(
      'uc',
      t('detail.useChannel'),
      <Flex wrap gap={4} align="center">
        {used.map((c, i) => (
          <span key={`${c}-${i}`}>
            {i > 0 ? <Typography.Text type="secondary"> → </Typography.Text> : null}
            <Tag style={{ margin: 0 }}>#{String(c)}</Tag>
          </span>
        ))}
      </Flex>,
    );
  }
  const affinity = admin ? o.admin_info?.channel_affinity : undefined;
  if (affinity && typeof affinity.rule_name === 'string')
    add(
      'aff',
      t('detail.affinity'),
      <span data-testid={`log-affinity-${row.id}`}>
        {t(affinity.pinned === true ? 'detail.affinityPinned' : 'detail.affinityNew', {
          rule: affinity.rule_name,
          hint: String(affinity.key_hint ?? ''),
          fp: String(affinity.key_fp ?? ''),
        })}
      </span>,
    );
  if (row.request_id)
    add(
      'rid',
      t('detail.requestId'),
      <Typography.Text copyable className="tw-log-num">
        {row.request_id}
      </Typography.Text>,
    );

  const formula = row.type === LogType.Consume ? costFormula(row, o, quotaPerUnit) : undefined;
  const hasContent = row.content.trim() !== '';
  const input = typeof o.input_content === 'string' && o.input_content !== '' ? o.input_content : undefined;
  const output = typeof o.output_content === 'string' && o.output_content !== '' ? o.output_content : undefined;
  const hasChat = input !== undefined || output !== undefined;
  const detail =
    admin && typeof o.admin_info?.error_detail === 'string' && o.admin_info.error_detail !== ''
      ? o.admin_info.error_detail
      : undefined;
  if (!formula && !hasContent && !hasChat && !detail && items.length === 0) {
    return (
      <div className="tw-log-detail" style={{ width }}>
        <Typography.Text type="secondary">{t('detail.none')}</Typography.Text>
      </div>
    );
  }

  return (
    <div className="tw-log-detail" style={{ width }} data-testid={`log-detail-${row.id}`}>
      {formula ? (
        <Flex vertical gap={4} style={{ marginBottom: 12 }}>
          <Typography.Text strong>{t('detail.formula')}</Typography.Text>
          <span className="tw-log-formula" data-testid={`log-formula-${row.id}`}>
            {formula}
          </span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {isFixedPrice(o) ? t('detail.priceFormulaHint') : t('detail.formulaHint')} · {t('detail.cost')}{' '}
            {usd(row.quota / (quotaPerUnit || DEFAULT_QUOTA_PER_UNIT))}
          </Typography.Text>
        </Flex>
      ) : null}
      {items.length > 0 ? (
        <Descriptions
          size="small"
          column={{ xs: 1, sm: 2, md: 3, xl: 4 }}
          items={items}
          style={{ marginBottom: hasContent || hasChat ? 12 : 0 }}
        />
      ) : null}
      {hasChat ? (
        <Flex vertical gap={12} style={{ marginBottom: hasContent ? 12 : 0 }}>
          {input !== undefined ? (
            <ChatContent label={t('detail.inputContent')} text={input} testId={`log-input-${row.id}`} />
          ) : null}
          {output !== undefined ? (
            <ChatContent label={t('detail.outputContent')} text={output} testId={`log-output-${row.id}`} />
          ) : null}
        </Flex>
      ) : null}
      {hasContent ? (
        <Flex vertical gap={4}>
          <Typography.Text strong>
            {row.type === LogType.Error ? t('detail.error') : t('detail.content')}
          </Typography.Text>
          <Typography.Text className="tw-log-content" type={row.type === LogType.Error ? 'danger' : undefined}>
            {logRowText(row, (n) => usd(n / (quotaPerUnit || DEFAULT_QUOTA_PER_UNIT)))}
          </Typography.Text>
        </Flex>
      ) : null}
      {detail !== undefined ? (
        <Flex vertical gap={4} style={{ marginTop: hasContent ? 12 : 0 }}>
          <Typography.Text strong>{t('detail.errorDetail')}</Typography.Text>
          <Typography.Text
            className="tw-log-content tw-log-mono"
            type="secondary"
            data-testid={`log-error-detail-${row.id}`}
          >
            {detail}
          </Typography.Text>
        </Flex>
      ) : null}
    </div>
  );
}

import { Button, Flex, Switch, Table, Tag, Typography, type TableColumnsType } from 'antd';
import type { SubscriptionPlan } from '@tollway/shared';
import type { HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { useQuotaFormat } from '../../../lib/self';
import { durationOf, priceText, resetOf, wordsOf, type Translate } from '../../../lib/subscription-format';
import { useIsMobile } from '../../../lib/useIsMobile';

interface Props {
  plans: SubscriptionPlan[];
  loading: boolean;
  /** The plan whose enabled switch is being saved. */
  toggling: number | null;
  onToggle: (plan: SubscriptionPlan, enabled: boolean) => void;
  onEdit: (plan: SubscriptionPlan) => void;
}

/** Width the plan columns scroll at on a desktop. */
const PLANS_MIN_WIDTH = 1046;

/** The payment settings a plan carries itself (Epay is the site's, not the plan's). */
function PaymentTags({ plan }: { plan: SubscriptionPlan }) {
  const { t } = useTranslation('subscriptions');
  const tags = [
    plan.allow_balance_pay && 'balance',
    plan.stripe_price_id && 'stripe',
    plan.creem_product_id && 'creem',
    plan.waffo_pancake_product_id && 'waffo',
  ].filter((k): k is string => typeof k === 'string' && k !== '');
  if (tags.length === 0) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Flex wrap gap={4}>
      {tags.map((k) => (
        <Tag key={k} style={{ marginInlineEnd: 0 }}>
          {t(`pay.${k}`)}
        </Tag>
      ))}
    </Flex>
  );
}

/** Every plan: price, duration, quota per period and its reset, upgrade group, payment, cap, enabled switch, edit. */
export function PlansTable({ plans, loading, toggling, onToggle, onEdit }: Props) {
  const { t } = useTranslation('subscriptions');
  const words = t as Translate;
  const fmt = useQuotaFormat();
  const mobile = useIsMobile();

  const columns: TableColumnsType<SubscriptionPlan> = [
    { title: t('col.id'), dataIndex: 'id', width: 56 },
    {
      title: t('col.title'),
      key: 'title',
      width: 170,
      render: (_, p) => (
        <Flex vertical gap={2} style={{ minWidth: 0 }}>
          <Typography.Text strong ellipsis={{ tooltip: p.title }}>
            {p.title}
          </Typography.Text>
          {p.subtitle ? (
            <Typography.Text type="secondary" ellipsis={{ tooltip: p.subtitle }} style={{ fontSize: 12 }}>
              {p.subtitle}
            </Typography.Text>
          ) : null}
        </Flex>
      ),
    },
    {
      title: t('col.enabled'),
      key: 'enabled',
      width: 70,
      render: (_, p) => (
        <Switch
          checked={p.enabled}
          loading={toggling === p.id}
          disabled={toggling !== null && toggling !== p.id}
          onChange={(on) => onToggle(p, on)}
          aria-label={t('col.enabled')}
          data-testid={`plan-enabled-${p.id}`}
        />
      ),
    },
    {
      title: t('col.price'),
      key: 'price',
      width: 100,
      render: (_, p) => <span data-testid={`plan-price-${p.id}`}>{priceText(p.price_amount, p.currency)}</span>,
    },
    { title: t('col.duration'), key: 'duration', width: 90, render: (_, p) => wordsOf(words, durationOf(p)) },
    {
      title: t('col.quota'),
      key: 'quota',
      width: 140,
      render: (_, p) => (
        <Flex vertical gap={2} data-testid={`plan-quota-${p.id}`}>
          <span>{p.total_amount > 0 ? fmt(p.total_amount) : t('value.unlimited')}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {wordsOf(words, resetOf(p))}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      title: t('col.upgradeGroup'),
      dataIndex: 'upgrade_group',
      width: 100,
      render: (g: string) =>
        g ? <Tag color="blue">{g}</Tag> : <Typography.Text type="secondary">{t('value.noUpgrade')}</Typography.Text>,
    },
    { title: t('col.payment'), key: 'payment', width: 150, render: (_, p) => <PaymentTags plan={p} /> },
    {
      title: t('col.cap'),
      dataIndex: 'max_purchase_per_user',
      width: 100,
      render: (n: number) => (n > 0 ? t('value.cap', { count: n }) : t('value.noCap')),
    },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 70,
      fixed: mobile ? undefined : 'right',
      render: (_, p) => (
        <Button size="small" type="link" onClick={() => onEdit(p)} data-testid={`plan-edit-${p.id}`}>
          {t('action.edit')}
        </Button>
      ),
    },
  ];

  return (
    <Table<SubscriptionPlan>
      rowKey="id"
      size="middle"
      columns={cardColumns(columns, mobile)}
      dataSource={plans}
      loading={loading}
      {...cardLayout(mobile, PLANS_MIN_WIDTH)}
      onRow={(p) => ({ 'data-testid': `plan-row-${p.id}` }) as HTMLAttributes<HTMLElement>}
      locale={{ emptyText: t('empty') }}
      pagination={false}
    />
  );
}

import { CrownOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Col, Empty, Flex, Progress, Row, Select, Space, Typography } from 'antd';
import {
  BILLING_PREFERENCES,
  type BillingPreference,
  type SubscriptionPlan,
  type UserSubscription,
} from '@tollway/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { attempt } from '../../lib/attempt';
import { formatTime } from '../../lib/format-time';
import { useQuotaFormat } from '../../lib/self';
import { durationOf, priceText, resetOf, usedPercent, wordsOf, type Translate } from '../../lib/subscription-format';
import { SELF_SUBSCRIPTIONS_KEY, setBillingPreference, usePlans, useSubscriptionSelf } from '../../lib/subscriptions';
import { BuyPlanModal } from './BuyPlanModal';

const time = (s: number) => formatTime(s, { seconds: false, empty: '—' });

/** One active subscription: its plan, used of total as a bar (or "unlimited"), when it ends and next resets. */
function ActiveSubscription({ sub, plan }: { sub: UserSubscription; plan: SubscriptionPlan | undefined }) {
  const { t } = useTranslation('subscriptions');
  const fmt = useQuotaFormat();
  const limited = sub.amount_total > 0;
  return (
    <div data-testid={`my-sub-${sub.id}`}>
      <Flex justify="space-between" wrap gap={8}>
        <Typography.Text strong>{plan?.title ?? t('value.planN', { id: sub.plan_id })}</Typography.Text>
        <Typography.Text type="secondary" data-testid={`my-sub-usage-${sub.id}`}>
          {limited
            ? t('usage.of', { used: fmt(sub.amount_used), total: fmt(sub.amount_total) })
            : t('usage.unlimited', { used: fmt(sub.amount_used) })}
        </Typography.Text>
      </Flex>
      {limited ? (
        <Progress
          percent={usedPercent(sub.amount_used, sub.amount_total)}
          status={sub.amount_used >= sub.amount_total ? 'exception' : 'normal'}
          aria-label={t('wallet.perPeriod')}
          data-testid={`my-sub-progress-${sub.id}`}
        />
      ) : null}
      <Flex wrap gap={16}>
        <Typography.Text type="secondary">{t('wallet.ends', { time: time(sub.end_time) })}</Typography.Text>
        {sub.next_reset_time > 0 ? (
          <Typography.Text type="secondary" data-testid={`my-sub-reset-${sub.id}`}>
            {t('wallet.nextReset', { time: time(sub.next_reset_time) })}
          </Typography.Text>
        ) : null}
      </Flex>
    </div>
  );
}

/** A plan on offer: price, duration, quota per period and its reset, and the buy button. */
function PlanOffer({ plan, onBuy }: { plan: SubscriptionPlan; onBuy: () => void }) {
  const { t } = useTranslation('subscriptions');
  const words = t as Translate;
  const fmt = useQuotaFormat();
  return (
    <Card
      size="small"
      style={{ height: '100%' }}
      styles={{ body: { height: '100%' } }}
      data-testid={`offer-${plan.id}`}
    >
      <Flex vertical gap={6} style={{ height: '100%' }}>
        <Typography.Text strong>{plan.title}</Typography.Text>
        {plan.subtitle ? <Typography.Text type="secondary">{plan.subtitle}</Typography.Text> : null}
        <Typography.Title level={2} style={{ margin: 0, fontSize: 22 }}>
          {priceText(plan.price_amount, plan.currency)}
          <Typography.Text type="secondary" style={{ fontSize: 14, fontWeight: 'normal' }}>
            {' / '}
            {wordsOf(words, durationOf(plan))}
          </Typography.Text>
        </Typography.Title>
        <Typography.Text>
          {t('wallet.perPeriodValue', {
            value: plan.total_amount > 0 ? fmt(plan.total_amount) : t('value.unlimited'),
          })}
        </Typography.Text>
        <Typography.Text type="secondary">{wordsOf(words, resetOf(plan))}</Typography.Text>
        {plan.max_purchase_per_user > 0 ? (
          <Typography.Text type="secondary">{t('wallet.cap', { count: plan.max_purchase_per_user })}</Typography.Text>
        ) : null}
        <Button type="primary" onClick={onBuy} style={{ marginTop: 'auto' }} data-testid={`offer-buy-${plan.id}`}>
          {t('wallet.buy')}
        </Button>
      </Flex>
    </Card>
  );
}

/** Which of wallet and subscription a call is billed to first (PUT /api/subscription/self/preference). */
function PreferenceSelect({ value }: { value: BillingPreference }) {
  const { t } = useTranslation('subscriptions');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const change = (next: BillingPreference) => {
    setSaving(true);
    void attempt(async () => {
      await setBillingPreference(next);
      void message.success(t('wallet.preferenceSaved'));
      await queryClient.invalidateQueries({ queryKey: SELF_SUBSCRIPTIONS_KEY });
    }).finally(() => setSaving(false));
  };
  return (
    <Space size={8} wrap>
      <Typography.Text type="secondary">{t('wallet.preference')}</Typography.Text>
      <Select<BillingPreference>
        value={value}
        onChange={change}
        loading={saving}
        disabled={saving}
        options={BILLING_PREFERENCES.map((p) => ({ value: p, label: t(`preference.${p}`) }))}
        style={{ minWidth: 220 }}
        aria-label={t('wallet.preference')}
        data-testid="sub-preference"
      />
    </Space>
  );
}

/**
 * The wallet's subscription card: the user's active subscriptions with their usage, the billing order, and the
 * plans on sale with a buy dialog. Hidden when no plan is on sale and the user holds none.
 */
export function SubscriptionCard() {
  const { t } = useTranslation('subscriptions');
  const plans = usePlans();
  const self = useSubscriptionSelf();
  const [buying, setBuying] = useState<SubscriptionPlan | null>(null);
  if (!plans.data || !self.data) return null;
  const active = self.data.subscriptions.map((s) => s.subscription);
  if (plans.data.length === 0 && active.length === 0) return null;
  const planOf = (id: number) => plans.data.find((p) => p.id === id);

  return (
    <Card
      data-testid="subscription-card"
      title={
        <Space>
          <CrownOutlined />
          {t('wallet.title')}
        </Space>
      }
    >
      <Flex vertical gap={20}>
        <div>
          {/* The billing order sits beside the heading (in the card's title it would squeeze it on a phone). */}
          <Flex justify="space-between" align="center" wrap gap={8} style={{ marginBottom: 12 }}>
            <Typography.Title level={2} style={{ fontSize: 16, margin: 0 }}>
              {t('wallet.mine')}
            </Typography.Title>
            <PreferenceSelect value={self.data.billing_preference} />
          </Flex>
          {active.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('wallet.none')} />
          ) : (
            <Flex vertical gap={16}>
              {active.map((s) => (
                <ActiveSubscription key={s.id} sub={s} plan={planOf(s.plan_id)} />
              ))}
            </Flex>
          )}
        </div>
        {plans.data.length > 0 ? (
          <div>
            <Typography.Title level={2} style={{ fontSize: 16, marginTop: 0 }}>
              {t('wallet.plans')}
            </Typography.Title>
            <Row gutter={[12, 12]}>
              {plans.data.map((p) => (
                <Col key={p.id} xs={24} sm={12} lg={8} xxl={6}>
                  <PlanOffer plan={p} onBuy={() => setBuying(p)} />
                </Col>
              ))}
            </Row>
          </div>
        ) : null}
      </Flex>
      <BuyPlanModal plan={buying} onClose={() => setBuying(null)} />
    </Card>
  );
}

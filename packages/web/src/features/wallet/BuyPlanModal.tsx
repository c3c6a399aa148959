import { AlipayCircleOutlined, CreditCardOutlined, WalletOutlined, WechatOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Descriptions, Flex, Modal, Typography } from 'antd';
import { DEFAULT_QUOTA_PER_UNIT, type SubscriptionPlan } from '@tollway/shared';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SELF_KEY, useQuotaFormat, useSelf } from '../../lib/self';
import { useStatus } from '../../lib/status';
import {
  balanceCost,
  durationOf,
  planPayMethods,
  priceText,
  resetOf,
  wordsOf,
  type PlanPayMethod,
  type Translate,
} from '../../lib/subscription-format';
import { payWithBalance, payWithCreem, payWithEpay, payWithStripe, SUBSCRIPTIONS_KEY } from '../../lib/subscriptions';
import { useSubmit } from '../../lib/useSubmit';
import { submitPaymentForm, useTopUpInfo } from './api';
import { openPaymentPage } from './open-payment';

const EPAY_ICON: Record<string, ReactNode> = {
  zfb: <AlipayCircleOutlined style={{ color: '#1677ff' }} />,
  wx: <WechatOutlined style={{ color: '#07c160' }} />,
};

const methodKey = (m: PlanPayMethod) => (m.kind === 'epay' ? `epay-${m.type}` : m.kind);

/** A plan's terms and the ways it can be paid: the wallet balance, Stripe, Creem and the site's Epay methods. */
export function BuyPlanModal({ plan, onClose }: { plan: SubscriptionPlan | null; onClose: () => void }) {
  const { t } = useTranslation('subscriptions');
  const words = t as Translate;
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const { data: status } = useStatus();
  const self = useSelf();
  const info = useTopUpInfo();
  const { loading, run } = useSubmit();
  const [paying, setPaying] = useState('');

  const methods = plan
    ? planPayMethods(plan, {
        enableOnlineTopup: info.data?.enable_online_topup ?? false,
        enableStripe: info.data?.enable_stripe_topup ?? false,
        enableCreem: info.data?.enable_creem_topup ?? false,
        payMethods: info.data?.pay_methods ?? [],
      })
    : [];
  const cost = plan ? balanceCost(plan.price_amount, status?.quota_per_unit || DEFAULT_QUOTA_PER_UNIT) : 0;
  const balance = self.data?.quota ?? 0;

  const opened = (link: string | undefined) => {
    if (!link) return void message.error(t('buy.failed'));
    openPaymentPage(link);
    void message.success(t('buy.opened'));
  };

  const pay = (m: PlanPayMethod) => {
    if (!plan) return;
    setPaying(methodKey(m));
    void run(async () => {
      if (m.kind === 'balance') {
        await payWithBalance(plan.id);
        void message.success(t('buy.paid'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY }),
          queryClient.invalidateQueries({ queryKey: SELF_KEY }),
        ]);
        onClose();
      } else if (m.kind === 'stripe') opened(await payWithStripe(plan.id));
      else if (m.kind === 'creem') opened(await payWithCreem(plan.id));
      else {
        const res = await payWithEpay(plan.id, m.type);
        if (!res.url || !res.data) return void message.error(t('buy.failed'));
        submitPaymentForm(res.url, res.data);
        void message.success(t('buy.opened'));
      }
    });
  };

  const label = (m: PlanPayMethod): string => {
    if (m.kind === 'epay') return m.type === 'zfb' || m.type === 'wx' ? t(`pay.${m.type}`) : m.name;
    return t(`pay.${m.kind}`);
  };
  const icon = (m: PlanPayMethod): ReactNode => {
    if (m.kind === 'balance') return <WalletOutlined />;
    if (m.kind === 'epay') return EPAY_ICON[m.type];
    return <CreditCardOutlined />;
  };

  return (
    <Modal
      open={plan !== null}
      title={plan ? t('buy.title', { title: plan.title }) : ''}
      onCancel={onClose}
      footer={null}
      destroyOnHidden
      data-testid="buy-plan-modal"
    >
      {plan ? (
        <Flex vertical gap={16}>
          <Descriptions size="small" column={1} bordered>
            <Descriptions.Item label={t('buy.price')}>{priceText(plan.price_amount, plan.currency)}</Descriptions.Item>
            <Descriptions.Item label={t('buy.duration')}>{wordsOf(words, durationOf(plan))}</Descriptions.Item>
            <Descriptions.Item label={t('buy.quota')}>
              {plan.total_amount > 0 ? fmt(plan.total_amount) : t('value.unlimited')}
            </Descriptions.Item>
            <Descriptions.Item label={t('buy.reset')}>{wordsOf(words, resetOf(plan))}</Descriptions.Item>
          </Descriptions>
          {methods.length === 0 ? (
            <Alert type="info" showIcon title={t('buy.noMethod')} data-testid="buy-no-method" />
          ) : (
            <div>
              <Typography.Text type="secondary">{t('buy.method')}</Typography.Text>
              <Flex wrap gap={8} style={{ marginTop: 6 }}>
                {methods.map((m) => {
                  const key = methodKey(m);
                  const short = m.kind === 'balance' && balance < cost;
                  return (
                    <Button
                      key={key}
                      size="large"
                      icon={icon(m)}
                      loading={loading && paying === key}
                      disabled={short || (loading && paying !== key)}
                      onClick={() => pay(m)}
                      data-testid={`buy-pay-${key}`}
                    >
                      {label(m)}
                    </Button>
                  );
                })}
              </Flex>
              {methods.some((m) => m.kind === 'balance') ? (
                <Typography.Paragraph
                  type={balance < cost ? 'danger' : 'secondary'}
                  style={{ marginTop: 8, marginBottom: 0 }}
                  data-testid="buy-balance-cost"
                >
                  {t('buy.balanceCost', { cost: fmt(cost), balance: fmt(balance) })}
                  {balance < cost ? ` · ${t('buy.insufficient')}` : ''}
                </Typography.Paragraph>
              ) : null}
            </div>
          )}
        </Flex>
      ) : null}
    </Modal>
  );
}

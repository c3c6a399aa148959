import {
  AlipayCircleOutlined,
  CreditCardOutlined,
  ShoppingOutlined,
  WalletOutlined,
  WechatOutlined,
} from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, InputNumber, Skeleton, Space, Typography } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TopUpInfo } from '@tollway/shared';
import { safeUrl } from '../../lib/sanitize';
import { useSubmit } from '../../lib/useSubmit';
import { useQuotaFormat } from '../../lib/self';
import { useIsMobile } from '../../lib/useIsMobile';
import {
  requestPay,
  requestStripePay,
  submitPaymentForm,
  TOPUP_KEY,
  usePayable,
  useStripePayable,
  useTopUpInfo,
  useUnitQuota,
} from './api';
import { CreemProducts } from './CreemProducts';
import { openPaymentPage } from './open-payment';

const METHOD_ICON: Record<string, ReactNode> = {
  zfb: <AlipayCircleOutlined style={{ color: '#1677ff' }} />,
  wx: <WechatOutlined style={{ color: '#07c160' }} />,
  stripe: <CreditCardOutlined style={{ color: '#635bff' }} />,
};

const STRIPE = 'stripe';

/** The money text of a payable query: the amount, the server's reason, or "calculating". */
function payableTextOf(
  q: { isError: boolean; error: unknown; data?: string },
  current: boolean,
  text: (money: string) => string,
  calculating: string,
): string {
  if (q.isError) return (q.error as Error).message;
  return q.data && current ? text(q.data) : calculating;
}

/** The smallest amount the field holds (the server never takes less, whatever MinTopUp says). */
const MIN_AMOUNT = 1;

/** Opens the top-up link (where redemption codes are sold), or says that none is set. */
function BuyCodeButton({ link }: { link: string }) {
  const { t } = useTranslation('wallet');
  const { message } = App.useApp();
  const open = () => {
    const url = safeUrl(link, 'page');
    if (!url) void message.error(t('topup.noLink'));
    else window.open(url, '_blank', 'noopener');
  };
  // On a phone the card title needs the room: the button shows its icon only.
  const compact = useIsMobile();
  return (
    <Button
      icon={<ShoppingOutlined />}
      onClick={open}
      title={t('topup.buyCode')}
      aria-label={t('topup.buyCode')}
      data-testid="topup-buy-code"
    >
      {compact ? null : t('topup.buyCode')}
    </Button>
  );
}

/** The amount after the user stopped typing for a moment (one price request per pause, not per key). */
function useSettled<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function OnlineTopUp({ info }: { info: TopUpInfo }) {
  const { t } = useTranslation('wallet');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const { loading, run } = useSubmit();
  const [paying, setPaying] = useState('');
  const [amount, setAmount] = useState<number | null>(
    () => info.amount_options[0] ?? Math.max(MIN_AMOUNT, info.min_topup),
  );
  const settled = useSettled(amount);
  const epay = info.enable_online_topup;
  // The server never takes less than 1, whatever the minimum is set to (Stripe's minimum: the server's message).
  const minimum = Math.max(MIN_AMOUNT, epay ? info.min_topup : MIN_AMOUNT);
  const belowMin = amount !== null && amount < minimum;
  // Typed amounts are kept as typed: a fraction is refused with a message, not rounded.
  const fraction = amount !== null && !belowMin && !Number.isInteger(amount);
  const payable = usePayable(settled, epay && !belowMin && !fraction && settled === amount);
  const stripePayable = useStripePayable(settled, info.enable_stripe_topup && !fraction && settled === amount);
  const methods = info.pay_methods.filter((m) => (m.type === STRIPE ? info.enable_stripe_topup : epay));
  // Amounts are labelled the way balances are shown.
  const unitQuota = useUnitQuota();

  const pay = (method: string) => {
    if (amount === null || belowMin) {
      void message.error(t('topup.minimum', { min: minimum }));
      return;
    }
    if (fraction) return void message.error(t('topup.whole'));
    setPaying(method);
    void run(async () => {
      if (method === STRIPE) {
        const link = await requestStripePay(amount);
        if (!link) return void message.error(t('topup.payFailed'));
        openPaymentPage(link);
        void message.success(t('topup.opened'));
        await queryClient.invalidateQueries({ queryKey: [...TOPUP_KEY, 'records'] });
        return;
      }
      const res = await requestPay(amount, method);
      if (!res.url || !res.data) {
        void message.error(t('topup.payFailed'));
        return;
      }
      submitPaymentForm(res.url, res.data);
      void message.success(t('topup.opened'));
      await queryClient.invalidateQueries({ queryKey: [...TOPUP_KEY, 'records'] });
    });
  };

  let payableText: string;
  if (belowMin) payableText = t('topup.minimum', { min: minimum });
  else if (fraction) payableText = t('topup.whole');
  else if (epay)
    payableText = payableTextOf(
      payable,
      settled === amount,
      (money) => t('topup.payableValue', { money }),
      t('topup.calculating'),
    );
  else
    payableText = payableTextOf(
      stripePayable,
      settled === amount,
      (money) => t('topup.stripePayable', { money }),
      t('topup.calculating'),
    );
  const stripeLine =
    epay && info.enable_stripe_topup && !belowMin && !fraction
      ? payableTextOf(stripePayable, settled === amount, (money) => t('topup.stripePayable', { money }), '')
      : '';

  return (
    <Flex vertical gap={16}>
      {info.amount_options.length > 0 && (
        <Flex wrap gap={8} data-testid="topup-presets">
          {info.amount_options.map((a) => (
            <Button
              key={a}
              type={a === amount ? 'primary' : 'default'}
              ghost={a === amount}
              onClick={(e) => {
                setAmount(a);
                // A clicked preset keeps no focus ring: only the selected one is highlighted.
                e.currentTarget.blur();
              }}
              data-testid={`topup-preset-${a}`}
            >
              {fmt(a * unitQuota)}
            </Button>
          ))}
        </Flex>
      )}
      <Flex wrap gap={24} align="flex-end">
        <div>
          <Typography.Text type="secondary">{t('topup.amount')}</Typography.Text>
          <InputNumber
            style={{ display: 'block', width: 200, marginTop: 4 }}
            value={amount}
            // As the spec says, the amount is at least 1: a typed 0 (or less) becomes 1, then the minimum check applies.
            onChange={(v) => setAmount(v === null ? null : Math.max(MIN_AMOUNT, Number(v)))}
            onBlur={() => setAmount((a) => a ?? minimum)}
            placeholder={t('topup.amountHint', { min: info.min_topup })}
            data-testid="topup-amount"
          />
        </div>
        <div>
          <Typography.Text type="secondary">{t('topup.payable')}</Typography.Text>
          <Typography.Title
            level={3}
            style={{ margin: '4px 0 0' }}
            type={belowMin || fraction || (epay ? payable : stripePayable).isError ? 'danger' : undefined}
            data-testid="topup-payable"
          >
            {payableText}
          </Typography.Title>
          {stripeLine && (
            <Typography.Text type="secondary" data-testid="topup-stripe-payable">
              {stripeLine}
            </Typography.Text>
          )}
        </div>
      </Flex>
      {info.group_ratio !== 1 && (
        <Typography.Text type="secondary">{t('topup.groupRatio', { ratio: info.group_ratio })}</Typography.Text>
      )}
      <div>
        <Typography.Text type="secondary">{t('topup.method')}</Typography.Text>
        <Flex wrap gap={8} style={{ marginTop: 6 }}>
          {methods.map((m) => (
            <Button
              key={m.type}
              size="large"
              icon={METHOD_ICON[m.type]}
              loading={loading && paying === m.type}
              disabled={loading && paying !== m.type}
              onClick={() => pay(m.type)}
              data-testid={`topup-pay-${m.type}`}
            >
              {m.type === 'zfb' || m.type === 'wx' ? t(`topup.${m.type}`) : m.name}
            </Button>
          ))}
        </Flex>
      </div>
    </Flex>
  );
}

/** Online top-up through Epay and Stripe (amount, live payable amount, method) and Creem's products; or why it is off. */
export function TopUpCard() {
  const { t } = useTranslation('wallet');
  const info = useTopUpInfo();
  return (
    <Card
      data-testid="topup-card"
      title={
        <Space>
          <WalletOutlined />
          {t('topup.title')}
        </Space>
      }
      extra={info.data && <BuyCodeButton link={info.data.top_up_link} />}
    >
      {info.isError ? (
        <Alert
          type="error"
          showIcon
          message={t('loadFailed')}
          action={
            <Button size="small" onClick={() => void info.refetch()}>
              {t('retry')}
            </Button>
          }
        />
      ) : !info.data ? (
        <Skeleton active paragraph={{ rows: 3 }} />
      ) : info.data.enable_online_topup || info.data.enable_stripe_topup || info.data.enable_creem_topup ? (
        <Flex vertical gap={24}>
          {(info.data.enable_online_topup || info.data.enable_stripe_topup) && <OnlineTopUp info={info.data} />}
          {info.data.enable_creem_topup && <CreemProducts info={info.data} />}
        </Flex>
      ) : (
        <Alert type="info" showIcon message={t('topup.disabled')} data-testid="topup-disabled" />
      )}
    </Card>
  );
}

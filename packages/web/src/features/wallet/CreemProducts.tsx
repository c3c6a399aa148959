import { CreditCardOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TopUpInfo } from '@tollway/shared';
import { useQuotaFormat } from '../../lib/self';
import { useSubmit } from '../../lib/useSubmit';
import { creemProductsOf, requestCreemPay, TOPUP_KEY } from './api';
import { openPaymentPage } from './open-payment';

/** Creem's products (CreemProducts): one button each, with its price and the quota it credits. */
export function CreemProducts({ info }: { info: TopUpInfo }) {
  const { t } = useTranslation('wallet');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const { loading, run } = useSubmit();
  const [paying, setPaying] = useState('');
  const products = creemProductsOf(info);

  const pay = (productId: string) => {
    setPaying(productId);
    void run(async () => {
      const link = await requestCreemPay(productId);
      if (!link) return void message.error(t('topup.payFailed'));
      openPaymentPage(link);
      void message.success(t('topup.opened'));
      await queryClient.invalidateQueries({ queryKey: [...TOPUP_KEY, 'records'] });
    });
  };

  return (
    <div data-testid="topup-creem">
      <Typography.Text type="secondary">{t('topup.creem')}</Typography.Text>
      <Flex wrap gap={8} style={{ marginTop: 6 }}>
        {products.map((p) => (
          <Button
            key={p.productId}
            size="large"
            icon={<CreditCardOutlined />}
            loading={loading && paying === p.productId}
            disabled={loading && paying !== p.productId}
            onClick={() => pay(p.productId)}
            data-testid={`topup-creem-${p.productId}`}
          >
            {t('topup.creemProduct', { name: p.name, quota: fmt(p.quota), price: p.price, currency: p.currency })}
          </Button>
        ))}
      </Flex>
    </div>
  );
}

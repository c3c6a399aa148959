import { GiftOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { SELF_KEY, useQuotaFormat } from '../../lib/self';

/**
 * Redeem a code on the wallet page: the code may come prefilled from `?code=`. POST /api/user/topup answers the
 * credited quota; the user's self query is refreshed so every balance on screen follows.
 */
export function RedeemCard() {
  const { t } = useTranslation('redemption');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [code, setCode] = useState(() => params.get('code') ?? '');
  const [credited, setCredited] = useState<number | null>(null);
  const { loading, run } = useSubmit();

  const redeem = () => {
    const key = code.trim();
    if (!key) {
      void message.warning(t('redeem.empty'));
      return;
    }
    setCredited(null);
    void run(async () => {
      const res = await api<number>('POST', '/api/user/topup', { key });
      const quota = Number(res.data ?? 0);
      setCredited(quota);
      setCode('');
      void message.success(t('redeem.success', { quota: fmt(quota) }));
      await queryClient.invalidateQueries({ queryKey: SELF_KEY });
    });
  };

  return (
    <Card
      data-testid="redeem-card"
      title={
        <Space>
          <GiftOutlined />
          {t('redeem.title')}
        </Space>
      }
    >
      <Space.Compact style={{ width: '100%' }}>
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          onPressEnter={redeem}
          placeholder={t('redeem.placeholder')}
          allowClear
          data-testid="redeem-input"
        />
        <Button type="primary" loading={loading} onClick={redeem} data-testid="redeem-button">
          {t('redeem.button')}
        </Button>
      </Space.Compact>
      {credited !== null && (
        <Typography.Paragraph type="success" style={{ marginTop: 12, marginBottom: 0 }} data-testid="redeem-result">
          {t('redeem.success', { quota: fmt(credited) })}
        </Typography.Paragraph>
      )}
    </Card>
  );
}

import { CalendarOutlined, CheckCircleOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, apiGet } from '../../lib/api';
import { SELF_KEY, useQuotaFormat } from './api';

const STATUS_KEY = ['user', 'check_in_status'] as const;

/** Daily check-in (only when status.check_in_enabled): GET check_in_status, POST check_in. */
export function CheckInCard() {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const [loading, setLoading] = useState(false);
  const { data: canCheckIn } = useQuery({
    queryKey: STATUS_KEY,
    queryFn: async () => {
      try {
        const d = await apiGet<{ can_check_in: boolean }>('/api/user/check_in_status', { silent: true });
        return d?.can_check_in !== false;
      } catch {
        return true;
      }
    },
  });

  const checkIn = async () => {
    setLoading(true);
    try {
      const res = await api<{ quota: number }>('POST', '/api/user/check_in', {}, { silent: true });
      void message.success(t('checkIn.success', { quota: fmt(res.data?.quota ?? 0) }));
      queryClient.setQueryData(STATUS_KEY, false);
      void queryClient.invalidateQueries({ queryKey: SELF_KEY });
    } catch {
      void message.error(t('checkIn.failed'));
    } finally {
      setLoading(false);
    }
  };

  const done = canCheckIn === false;
  return (
    <Card data-testid="me-check-in">
      <div style={{ display: 'flex', alignItems: 'center', gap: 14 }}>
        <div className="tw-feature-icon" style={{ marginBottom: 0, flex: 'none' }}>
          <CalendarOutlined />
        </div>
        <div style={{ flex: 1, minWidth: 0 }}>
          <Typography.Text strong>{t('checkIn.title')}</Typography.Text>
          <br />
          <Typography.Text type="secondary" style={{ fontSize: 13 }}>
            {t('checkIn.desc')}
          </Typography.Text>
        </div>
        <Button
          type="primary"
          loading={loading}
          disabled={done}
          icon={done ? <CheckCircleOutlined /> : undefined}
          onClick={() => void checkIn()}
          data-testid="me-check-in-button"
        >
          {done ? t('checkIn.done') : t('checkIn.button')}
        </Button>
      </div>
    </Card>
  );
}

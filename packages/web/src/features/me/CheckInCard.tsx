import { CalendarOutlined, CheckCircleOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { CheckInStatus } from '@tollway/shared';
import { App, Button, Card, Skeleton, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure, api, apiGet } from '../../lib/api';
import { SELF_KEY, useQuotaFormat } from '../../lib/self';

const STATUS_KEY = ['user', 'check_in_status'] as const;

/**
 * Daily check-in (shown when status.check_in_enabled): today's state and the reward from
 * GET /api/user/check_in_status, POST /api/user/check_in; after a check-in the button reads "checked in today"
 * and the balance is refetched.
 */
export function CheckInCard() {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const format = useQuotaFormat();
  // Rewards are often a fraction of a cent: small amounts keep six decimals.
  const fmt = (q: number) => format(q, q !== 0 && Math.abs(q) < 5000 ? 6 : undefined);
  const queryClient = useQueryClient();
  const [loading, setLoading] = useState(false);
  const { data: status, isLoading } = useQuery({
    queryKey: STATUS_KEY,
    queryFn: () => apiGet<CheckInStatus>('/api/user/check_in_status'),
  });

  const checkIn = async () => {
    setLoading(true);
    try {
      const res = await api<{ quota: number }>('POST', '/api/user/check_in', {}, { silent: true });
      const quota = res.data?.quota ?? 0;
      void message.success(t('checkIn.success', { quota: fmt(quota) }));
      queryClient.setQueryData<CheckInStatus>(STATUS_KEY, (s) =>
        s ? { ...s, can_check_in: false, checked_in: true, quota } : s,
      );
      void queryClient.invalidateQueries({ queryKey: SELF_KEY });
    } catch (err) {
      // The server's reason when it gave one (already checked in, turned off), else the generic failure.
      void message.error(
        err instanceof ApiFailure && err.status !== 0 && err.status < 500 ? err.message : t('checkIn.failed'),
      );
      void queryClient.invalidateQueries({ queryKey: STATUS_KEY });
    } finally {
      setLoading(false);
    }
  };

  const done = status?.checked_in === true;
  const reward = !status
    ? ''
    : status.max_quota > status.min_quota
      ? t('checkIn.rewardRange', { min: fmt(status.min_quota), max: fmt(status.max_quota) })
      : t('checkIn.rewardFixed', { quota: fmt(status.min_quota) });
  return (
    <Card data-testid="me-check-in">
      {isLoading ? (
        <Skeleton active title={false} paragraph={{ rows: 2 }} />
      ) : (
        <div style={{ display: 'flex', alignItems: 'center', gap: 14 }}>
          <div className="tw-feature-icon" style={{ marginBottom: 0, flex: 'none' }}>
            <CalendarOutlined />
          </div>
          <div style={{ flex: 1, minWidth: 0 }}>
            <Typography.Text strong>{t('checkIn.title')}</Typography.Text>
            <br />
            <Typography.Text type="secondary" style={{ fontSize: 13 }} data-testid="me-check-in-reward">
              {reward}
            </Typography.Text>
            {done ? (
              <div style={{ marginTop: 4 }}>
                <Tag color="green" bordered={false} data-testid="me-check-in-today">
                  {t('checkIn.today', { quota: fmt(status.quota) })}
                </Tag>
              </div>
            ) : null}
          </div>
          <Button
            type="primary"
            loading={loading}
            disabled={!status?.can_check_in}
            icon={done ? <CheckCircleOutlined /> : undefined}
            onClick={() => void checkIn()}
            data-testid="me-check-in-button"
          >
            {done ? t('checkIn.done') : t('checkIn.button')}
          </Button>
        </div>
      )}
    </Card>
  );
}

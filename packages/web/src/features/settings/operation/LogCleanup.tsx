import { DeleteOutlined } from '@ant-design/icons';
import { App, Button, Col, Flex, Form, Input, Popconfirm } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure, api } from '../../../lib/api';
import { useTheme } from '../../../lib/theme';

/** yyyy-mm-dd of the same day one month ago (the default clean-up date). */
function monthAgo(): string {
  const d = new Date();
  d.setMonth(d.getMonth() - 1);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Deletes logs older than a date: DELETE /api/log/?target_timestamp={seconds} → data is the count. */
export function LogCleanup() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [date, setDate] = useState(monthAgo);
  const [busy, setBusy] = useState(false);
  const theme = useTheme();

  const run = async () => {
    const ts = Math.floor(new Date(`${date}T00:00:00`).getTime() / 1000);
    if (!Number.isFinite(ts)) return;
    setBusy(true);
    try {
      const env = await api<number>('DELETE', `/api/log/?target_timestamp=${ts}`);
      void message.success(t('logs.cleaned', { count: Number(env.data ?? 0) }));
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    } finally {
      setBusy(false);
    }
  };

  return (
    <Col span={24}>
      <Form.Item label={t('logs.cleanLabel')} extra={t('logs.cleanHelp')}>
        <Flex wrap gap={8}>
          <Input type="date" value={date} onChange={(e) => setDate(e.target.value)} style={{ width: 180, colorScheme: theme }} data-testid="log-clean-date" />
          <Popconfirm
            title={t('logs.cleanConfirm', { date })}
            okButtonProps={{ danger: true }}
            okText={t('common:action.confirm')}
            cancelText={t('common:action.cancel')}
            onConfirm={run}
          >
            <Button danger icon={<DeleteOutlined />} loading={busy} disabled={!date} data-testid="log-clean">
              {t('logs.clean')}
            </Button>
          </Popconfirm>
        </Flex>
      </Form.Item>
    </Col>
  );
}

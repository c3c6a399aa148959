import { DeleteOutlined } from '@ant-design/icons';
import { App, Button, Col, DatePicker, Flex, Form, Popconfirm } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure, api } from '../../../lib/api';
import { isRootUser } from '../model/access';

/** The same day one month ago, at midnight (the default clean-up date). */
const monthAgo = (): Dayjs => dayjs().subtract(1, 'month').startOf('day');

/** Root's clean-up of old logs (DELETE /api/log/ is root-only): nothing for an administrator. */
export function LogCleanup() {
  return isRootUser() ? <LogCleanupForm /> : null;
}

/** Deletes logs older than a date: DELETE /api/log/?target_timestamp={seconds} → data is the count. */
function LogCleanupForm() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [date, setDate] = useState<Dayjs | null>(monthAgo);
  const [busy, setBusy] = useState(false);

  const run = async () => {
    if (!date) return;
    const ts = date.startOf('day').unix();
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
          <DatePicker
            value={date}
            onChange={setDate}
            format="YYYY-MM-DD"
            style={{ width: 180 }}
            data-testid="log-clean-date"
          />
          <Popconfirm
            title={t('logs.cleanConfirm', { date: date?.format('YYYY-MM-DD') ?? '' })}
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

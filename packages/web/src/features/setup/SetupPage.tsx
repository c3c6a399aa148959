import { DatabaseOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Result, Skeleton, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { api, apiGet } from '../../lib/api';
import { DEFAULT_LOGO } from '../../lib/logo';
import { STATUS_KEY, useStatus, type Status } from '../../lib/status';
import { writeJson } from '../../lib/storage';
import { setupBody, type SetupInfo, type SetupValues } from './schema';
import { SetupForm } from './SetupForm';
import { markSetupComplete } from './setupState';

/** /setup, the first-run page: create the root account and choose the usage mode. */
export default function SetupPage() {
  const { t } = useTranslation('setup');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { data: status } = useStatus();
  const [submitting, setSubmitting] = useState(false);
  const info = useQuery({ queryKey: ['setup'], queryFn: () => apiGet<SetupInfo>('/api/setup', { silent: true }) });

  const submit = async (v: SetupValues) => {
    setSubmitting(true);
    try {
      await api('POST', '/api/setup', setupBody(v), { silent: true });
      void message.success(t('success'));
      markSetupComplete();
      const next = queryClient.getQueryData<Status>(STATUS_KEY);
      if (next) writeJson('status', { ...next, setup: true });
      void queryClient.invalidateQueries({ queryKey: STATUS_KEY });
      navigate('/login', { replace: true });
    } catch (err) {
      void message.error(`${t('failed')}${err instanceof Error && err.message ? `: ${err.message}` : ''}`);
    } finally {
      setSubmitting(false);
    }
  };

  let body;
  if (info.isPending) body = <Skeleton active paragraph={{ rows: 8 }} />;
  else if (info.isError)
    body = (
      <Result
        status="warning"
        title={t('statusFailed')}
        subTitle={info.error.message}
        extra={<Button onClick={() => void info.refetch()}>{t('retry')}</Button>}
      />
    );
  else if (info.data.root_init)
    body = (
      <Result
        status="success"
        title={t('doneTitle')}
        subTitle={t('doneDesc')}
        data-testid="setup-done"
        extra={
          <Link to="/login">
            <Button type="primary">{t('toLogin')}</Button>
          </Link>
        }
      />
    );
  else {
    const dbType = info.data.database_type || 'sqlite';
    body = (
      <>
        <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 12 }}>
          <DatabaseOutlined />
          <Typography.Text>{t('databaseType')}</Typography.Text>
          <Tag color={dbType === 'sqlite' ? 'orange' : 'green'} data-testid="setup-db-type">
            {dbType}
          </Tag>
        </div>
        {dbType === 'sqlite' && (
          <Alert
            type="warning"
            showIcon
            title={t('sqliteWarn')}
            data-testid="setup-sqlite-warning"
            style={{ marginBottom: 8 }}
          />
        )}
        <SetupForm loading={submitting} onSubmit={(v) => void submit(v)} />
      </>
    );
  }

  return (
    <div className="tw-auth" data-testid="setup-page">
      <Card className="tw-auth-card" style={{ maxWidth: 600 }} styles={{ body: { padding: '32px 28px 28px' } }}>
        <div className="tw-auth-head">
          <img src={status?.logo || DEFAULT_LOGO} alt="" onError={(e) => (e.currentTarget.src = DEFAULT_LOGO)} />
          <Typography.Title level={3} style={{ margin: 0 }}>
            {t('title')}
          </Typography.Title>
          <Typography.Text type="secondary">
            {t('subtitle', { name: status?.system_name || 'Tollway' })}
          </Typography.Text>
        </div>
        {body}
      </Card>
    </div>
  );
}

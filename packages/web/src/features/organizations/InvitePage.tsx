import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Result, Space, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { formatTime } from '../../lib/format-time';
import { useSubmit } from '../../lib/useSubmit';
import { acceptInvitation, MY_ORGS_KEY, previewInvitation } from './api';
import { orgPath, setCurrentOrg } from './current';

/**
 * /app/org/invite?code=…: what the invitation grants (GET /api/org/invitation), then accept (POST
 * /api/org/invitation/accept) and open the organization. A visitor not signed in is sent to sign in first and comes
 * back here (the route's guard keeps the address).
 */
export default function InvitePage() {
  const { t } = useTranslation('organizations');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const code = (useSearchParams()[0].get('code') ?? '').trim();
  const preview = useQuery({
    queryKey: ['org', 'invitation', code],
    queryFn: () => previewInvitation(code),
    enabled: code !== '',
    retry: false,
  });
  const { loading, run } = useSubmit();
  const accept = () =>
    run(async () => {
      const org = await acceptInvitation(code);
      await queryClient.invalidateQueries({ queryKey: MY_ORGS_KEY });
      setCurrentOrg({ id: org.id, name: org.name, role: org.role });
      navigate(orgPath(org.id));
    });

  const p = preview.data;
  return (
    <div className="tw-page" data-testid="org-invite-page">
      <PageHeader title={t('accept.title')} />
      <Card style={{ maxWidth: 560 }}>
        {!code ? (
          <Result status="warning" title={t('accept.noCode')} />
        ) : preview.isLoading ? (
          <Space>
            <Spin />
            {t('accept.loading')}
          </Space>
        ) : !p ? (
          <Result status="warning" title={t('accept.invalid')} data-testid="org-invite-invalid" />
        ) : (
          <Space direction="vertical" size="middle" style={{ width: '100%' }}>
            <Typography.Paragraph style={{ fontSize: 16, margin: 0 }} data-testid="org-invite-preview">
              {t('accept.body', { name: p.org_name, role: t(`role.${p.role}`) })}
            </Typography.Paragraph>
            {p.email && <Typography.Text type="secondary">{t('accept.forEmail', { email: p.email })}</Typography.Text>}
            <Typography.Text type="secondary">
              {t('accept.expires', { time: formatTime(p.expires_at, { seconds: false }) })}
            </Typography.Text>
            <Space wrap>
              <Button type="primary" loading={loading} onClick={() => void accept()} data-testid="org-invite-accept">
                {t('accept.accept')}
              </Button>
              <Button onClick={() => navigate('/app/tokens')}>{t('accept.decline')}</Button>
            </Space>
          </Space>
        )}
      </Card>
    </div>
  );
}

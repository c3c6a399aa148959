import { GiftOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ORG_NAME_MAX, orgUpdateBody } from '@tollway/shared';
import { App, Button, Card, Col, Form, Input, Popconfirm, Row, Space, Statistic, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { useQuotaFormat } from '../../../lib/self';
import { useSubmit } from '../../../lib/useSubmit';
import { deleteOrg, MY_ORGS_KEY, ORG_KEY, redeemOrgCode, updateOrg } from '../api';
import { OrgMcpCard } from '../components/OrgMcpCard';
import { RoleTag } from '../components/RoleTag';
import { useOrgView } from '../context';
import { setCurrentOrg } from '../current';

/** /app/org/:id/overview: the shared wallet, members, redeeming a code into the wallet, and the settings of admins. */
export default function OverviewPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const fmt = useQuotaFormat();
  return (
    <>
      <PageHeader title={org.name} subtitle={t('overview.subtitle')} />
      <Row gutter={[16, 16]}>
        <Col xs={12} md={6}>
          <Card>
            <Statistic title={t('overview.wallet')} value={fmt(org.quota)} data-testid="org-wallet-quota" />
          </Card>
        </Col>
        <Col xs={12} md={6}>
          <Card>
            <Statistic title={t('overview.used')} value={fmt(org.used_quota)} />
          </Card>
        </Col>
        <Col xs={12} md={6}>
          <Card>
            <Statistic title={t('overview.members')} value={org.member_count} data-testid="org-member-count" />
          </Card>
        </Col>
        <Col xs={12} md={6}>
          <Card>
            <Statistic title={t('overview.yourRole')} valueRender={() => <RoleTag role={org.role} />} />
          </Card>
        </Col>
        {can('wallet.credit') && (
          <Col xs={24} xl={10}>
            <RedeemCard />
          </Col>
        )}
        {can('org.manage') && (
          <Col xs={24} xl={14}>
            <SettingsCard />
          </Col>
        )}
        {can('org.manage') && (
          <Col xs={24} xl={14}>
            <OrgMcpCard />
          </Col>
        )}
      </Row>
    </>
  );
}

/** POST /api/org/:id/redeem: a redemption code credits the shared wallet. */
function RedeemCard() {
  const { t } = useTranslation('organizations');
  const { org } = useOrgView();
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const { loading, run } = useSubmit();
  const redeem = () => {
    if (!code.trim()) {
      void message.warning(t('overview.redeemEmpty'));
      return;
    }
    void run(async () => {
      const quota = await redeemOrgCode(org.id, code.trim());
      setCode('');
      void message.success(t('overview.redeemed', { quota: fmt(quota) }));
      await queryClient.invalidateQueries({ queryKey: ORG_KEY });
    });
  };
  return (
    <Card
      title={
        <Space>
          <GiftOutlined />
          {t('overview.redeemTitle')}
        </Space>
      }
    >
      <Space.Compact style={{ width: '100%' }}>
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          onPressEnter={redeem}
          placeholder={t('overview.redeemPh')}
          aria-label={t('overview.redeemPh')}
          allowClear
          data-testid="org-redeem-input"
        />
        <Button type="primary" loading={loading} onClick={redeem} data-testid="org-redeem-button">
          {t('overview.redeem')}
        </Button>
      </Space.Compact>
    </Card>
  );
}

/** PUT /api/org/:id: name and the budget alerts' webhook (admins); markup (owner of a reseller); delete (owner). */
function SettingsCard() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(org.name);
  const [webhook, setWebhook] = useState(org.alert_webhook_url);
  const [secret, setSecret] = useState('');
  const [markup, setMarkup] = useState(String(org.markup_bp));
  const [error, setError] = useState<string>();
  const { loading, run } = useSubmit();
  useEffect(() => {
    setName(org.name);
    setWebhook(org.alert_webhook_url);
    setMarkup(String(org.markup_bp));
  }, [org.name, org.alert_webhook_url, org.markup_bp]);
  const reseller = org.reseller && can('org.own');

  const save = () => {
    const parsed = orgUpdateBody.safeParse({
      name,
      alert_webhook_url: webhook,
      ...(secret ? { alert_webhook_secret: secret } : {}),
      ...(reseller ? { markup_bp: Number(markup) } : {}),
    });
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return;
    }
    setError(undefined);
    void run(async () => {
      await updateOrg(org.id, parsed.data);
      setSecret('');
      void message.success(t('overview.saved'));
      setCurrentOrg({ id: org.id, name: parsed.data.name ?? org.name, role: org.role });
      await queryClient.invalidateQueries({ queryKey: ORG_KEY });
    });
  };
  const remove = () =>
    run(async () => {
      await deleteOrg(org.id);
      void message.success(t('overview.deleted'));
      setCurrentOrg(undefined);
      await queryClient.invalidateQueries({ queryKey: MY_ORGS_KEY });
      navigate('/app/tokens');
    });

  return (
    <Card title={t('overview.settings')}>
      <Form layout="vertical" onFinish={save}>
        <Form.Item label={t('overview.name')} htmlFor="org-name">
          <Input
            id="org-name"
            value={name}
            maxLength={ORG_NAME_MAX}
            onChange={(e) => setName(e.target.value)}
            data-testid="org-settings-name"
          />
        </Form.Item>
        <Form.Item label={t('overview.webhook')} htmlFor="org-webhook">
          <Input
            id="org-webhook"
            value={webhook}
            placeholder={t('overview.webhookPh')}
            onChange={(e) => setWebhook(e.target.value)}
            data-testid="org-settings-webhook"
          />
        </Form.Item>
        <Form.Item label={t('overview.webhookSecret')} htmlFor="org-webhook-secret">
          <Input.Password
            id="org-webhook-secret"
            value={secret}
            placeholder={t('overview.webhookSecretPh')}
            autoComplete="new-password"
            onChange={(e) => setSecret(e.target.value)}
          />
        </Form.Item>
        {reseller && (
          <Form.Item label={t('overview.markup')} htmlFor="org-markup">
            <Input id="org-markup" inputMode="numeric" value={markup} onChange={(e) => setMarkup(e.target.value)} />
          </Form.Item>
        )}
        {error && (
          <Typography.Paragraph type="danger" data-testid="org-settings-error">
            {error}
          </Typography.Paragraph>
        )}
        <Space wrap>
          <Button type="primary" htmlType="submit" loading={loading} data-testid="org-settings-save">
            {t('common.save')}
          </Button>
          {can('org.own') && (
            <Popconfirm
              title={t('overview.danger')}
              description={t('overview.deleteConfirm', { name: org.name })}
              okText={t('common.delete')}
              okButtonProps={{ danger: true }}
              onConfirm={remove}
            >
              <Button danger data-testid="org-delete">
                {t('overview.danger')}
              </Button>
            </Popconfirm>
          )}
        </Space>
      </Form>
    </Card>
  );
}

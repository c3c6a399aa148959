import {
  ApiOutlined,
  ArrowRightOutlined,
  BarChartOutlined,
  CopyOutlined,
  DeploymentUnitOutlined,
  FileTextOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import { Button, Card, Col, Input, Row, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { safeUrl } from '../../lib/sanitize';
import { useStatus } from '../../lib/status';
import { consolePath } from '../../layout/navItems';
import { useStoredUser } from '../../lib/session';
import { useCopy } from '../../components/useCopy';

const FEATURES = [
  { key: 'unified', icon: <ApiOutlined /> },
  { key: 'billing', icon: <WalletOutlined /> },
  { key: 'routing', icon: <DeploymentUnitOutlined /> },
  { key: 'insight', icon: <BarChartOutlined /> },
] as const;

/** Default home page when no custom content is set: name, description, API base URL and console buttons. */
export function DefaultHero() {
  const { t } = useTranslation('home');
  const { data: status } = useStatus();
  const user = useStoredUser();
  const navigate = useNavigate();
  const copy = useCopy();
  const name = status?.system_name || 'Tollway';
  const baseUrl = window.location.origin;
  const docs = safeUrl(status?.docs_link, 'link');
  return (
    <div data-testid="home-hero">
      <section className="tw-hero">
        <Tag color="blue" bordered={false} style={{ marginBottom: 18, padding: '2px 12px', borderRadius: 999 }}>
          {t('hero.badge')}
        </Tag>
        <Typography.Title level={1}>
          {t('hero.title')} <span className="tw-hero-gradient">{t('hero.titleAccent')}</span>
        </Typography.Title>
        <Typography.Paragraph className="tw-hero-desc">{t('hero.desc', { name })}</Typography.Paragraph>
        <div className="tw-base-url">
          <Space.Compact style={{ width: '100%' }} size="large">
            <Input
              readOnly
              aria-label={t('hero.baseUrl')}
              value={baseUrl}
              prefix={<Typography.Text type="secondary">{t('hero.baseUrl')}</Typography.Text>}
              data-testid="home-base-url"
            />
            <Button
              icon={<CopyOutlined />}
              onClick={() => void copy(baseUrl, t('hero.copied'))}
              data-testid="home-copy-base-url"
            >
              {t('hero.copy')}
            </Button>
          </Space.Compact>
        </div>
        <Space wrap size={12} style={{ justifyContent: 'center' }}>
          <Button
            type="primary"
            size="large"
            icon={<ArrowRightOutlined />}
            iconPlacement="end"
            data-testid="home-console"
            onClick={() => navigate(user ? consolePath(status) : '/login')}
          >
            {user ? t('hero.console') : t('hero.start')}
          </Button>
          {docs && (
            <Button size="large" icon={<FileTextOutlined />} href={docs} target="_blank" rel="noopener noreferrer">
              {t('hero.docs')}
            </Button>
          )}
        </Space>
      </section>
      <section className="tw-features">
        <Row gutter={[16, 16]}>
          {FEATURES.map((f) => (
            <Col xs={24} sm={12} lg={6} key={f.key}>
              <Card hoverable style={{ height: '100%' }}>
                <div className="tw-feature-icon">{f.icon}</div>
                <Typography.Title level={5} style={{ marginTop: 0 }}>
                  {t(`features.${f.key}Title`)}
                </Typography.Title>
                <Typography.Text type="secondary">{t(`features.${f.key}Desc`)}</Typography.Text>
              </Card>
            </Col>
          ))}
        </Row>
      </section>
    </div>
  );
}

import { InfoCircleOutlined } from '@ant-design/icons';
import { Card, Skeleton, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../lib/status';
import { ContentFrame, isFrameUrl, RichContent } from '../../components/RichContent';
import { useContent } from './useContent';

/** /about: GET /api/about with the home page's rendering rules; empty shows a default text. */
export default function AboutPage() {
  const { t } = useTranslation('home');
  const { data: status } = useStatus();
  const { data, isPending } = useContent('about');
  const content = (data ?? '').trim();
  const name = status?.system_name || 'Tollway';
  if (data === undefined && isPending) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (isFrameUrl(content)) return <ContentFrame src={content} testId="about-frame" />;
  return (
    <div className="tw-page" style={{ maxWidth: 900 }} data-testid="about-page">
      <Card>
        {content ? (
          <RichContent content={content} testId="about-content" />
        ) : (
          <div data-testid="about-default">
            <Typography.Title level={3} style={{ marginTop: 0 }}>
              <InfoCircleOutlined style={{ color: '#1677ff', marginRight: 10 }} />
              {t('about.defaultTitle', { name })}
            </Typography.Title>
            <Typography.Paragraph>{t('about.project', { name })}</Typography.Paragraph>
            <Typography.Paragraph type="secondary">{t('about.defaultText')}</Typography.Paragraph>
            {status?.version && <Typography.Text type="secondary">v{status.version}</Typography.Text>}
          </div>
        )}
      </Card>
    </div>
  );
}

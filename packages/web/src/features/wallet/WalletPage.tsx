import { Button, Col, Flex, Result, Row, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSelf } from '../../lib/self';
import { ProfileCard } from '../../components/ProfileCard';
import { PageHeader } from '../../components/PageHeader';
import { RedeemCard } from './RedeemCard';
import { SubscriptionCard } from './SubscriptionCard';
import { TopUpCard } from './TopUpCard';
import { TopUpRecords } from './TopUpRecords';

/** /app/wallet: balance, used quota and requests; redeem a code; online top-up; subscription plans; top-up records. */
export default function WalletPage() {
  const { t } = useTranslation('wallet');
  const self = useSelf();
  return (
    <div className="tw-page" data-testid="wallet-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {self.data ? (
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={15}>
            <Flex vertical gap={16}>
              <ProfileCard user={self.data} />
              <TopUpCard />
            </Flex>
          </Col>
          <Col xs={24} xl={9}>
            <RedeemCard />
          </Col>
          <Col span={24}>
            {/* The plans card renders nothing when there is nothing to show: no empty gap then. */}
            <Flex vertical gap={16}>
              <SubscriptionCard />
              <TopUpRecords />
            </Flex>
          </Col>
        </Row>
      ) : self.isError ? (
        <Result
          status="warning"
          title={t('loadFailed')}
          extra={<Button onClick={() => void self.refetch()}>{t('retry')}</Button>}
        />
      ) : (
        <Skeleton active paragraph={{ rows: 10 }} />
      )}
    </div>
  );
}

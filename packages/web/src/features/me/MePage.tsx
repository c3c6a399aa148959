import type { UserPublic } from '@tollway/shared';
import { Button, Col, Flex, Result, Row, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../lib/status';
import { PageHeader } from '../../components/PageHeader';
import { useSelf } from '../../lib/self';
import { BindingsCard } from './BindingsCard';
import { CheckInCard } from './CheckInCard';
import { InviteCard } from './InviteCard';
import { ModelsCard } from './ModelsCard';
import { ProfileCard } from '../../components/ProfileCard';
import { SecurityCard } from './SecurityCard';
import { SessionsCard } from './SessionsCard';
import { SettingsTabs } from './SettingsTabs';
import { TwoFactorCard } from '../../components/twofa/TwoFactorCard';
import { PasskeyCard } from '../../components/passkey/PasskeyCard';

function Content({ user }: { user: UserPublic }) {
  const { data: status } = useStatus();
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={15}>
        <Flex vertical gap={16}>
          <ProfileCard user={user} />
          <ModelsCard />
          <SettingsTabs user={user} />
        </Flex>
      </Col>
      <Col xs={24} xl={9}>
        <Flex vertical gap={16}>
          {status?.check_in_enabled && <CheckInCard />}
          <InviteCard user={user} />
          <SecurityCard user={user} />
          <TwoFactorCard account={user.username} />
          <PasskeyCard />
          <SessionsCard />
          <BindingsCard user={user} />
        </Flex>
      </Col>
    </Row>
  );
}

/** /app/me: personal settings. */
export default function MePage() {
  const { t } = useTranslation('me');
  const self = useSelf();
  return (
    <div className="tw-page" data-testid="me-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {self.data ? (
        <Content user={self.data} />
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

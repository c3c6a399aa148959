import { CopyOutlined, GiftOutlined, SwapOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import type { UserPublic } from '@tollway/shared';
import { Button, Card, Col, Input, Row, Space, Statistic } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../lib/api';
import { useCopy } from '../../components/useCopy';
import { useQuotaFormat } from '../../lib/self';
import { TransferModal } from './TransferModal';
import { IconTitle } from '../../components/IconTitle';

/** Invite link (GET /api/user/aff), rewards and the transfer dialog. */
export function InviteCard({ user }: { user: UserPublic }) {
  const { t } = useTranslation('me');
  const fmt = useQuotaFormat();
  const copy = useCopy();
  const [transferOpen, setTransferOpen] = useState(false);
  const { data: code } = useQuery({ queryKey: ['user', 'aff'], queryFn: () => apiGet<string>('/api/user/aff') });
  const link = code ? `${window.location.origin}/register?aff=${encodeURIComponent(code)}` : '';
  return (
    <Card title={<IconTitle icon={GiftOutlined}>{t('invite.title')}</IconTitle>} data-testid="me-invite">
      <Row gutter={[12, 12]} style={{ marginBottom: 16 }}>
        <Col span={8}>
          <Statistic title={t('invite.pending')} value={fmt(user.aff_quota)} data-testid="me-aff-quota" />
        </Col>
        <Col span={8}>
          <Statistic title={t('invite.total')} value={fmt(user.aff_history_quota)} data-testid="me-aff-history" />
        </Col>
        <Col span={8}>
          <Statistic title={t('invite.count')} value={user.aff_count} data-testid="me-aff-count" />
        </Col>
      </Row>
      <Space orientation="vertical" size={10} style={{ width: '100%' }}>
        <Space.Compact style={{ width: '100%' }}>
          <Input readOnly value={link} placeholder={t('invite.link')} data-testid="me-invite-link" />
          <Button
            icon={<CopyOutlined />}
            disabled={!link}
            onClick={() => void copy(link, t('invite.copied'))}
            data-testid="me-invite-copy"
          >
            {t('invite.copy')}
          </Button>
        </Space.Compact>
        <Button block icon={<SwapOutlined />} onClick={() => setTransferOpen(true)} data-testid="me-transfer">
          {t('invite.transfer')}
        </Button>
      </Space>
      <TransferModal open={transferOpen} available={user.aff_quota} onClose={() => setTransferOpen(false)} />
    </Card>
  );
}

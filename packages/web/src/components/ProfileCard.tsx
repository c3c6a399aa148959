import { EditOutlined } from '@ant-design/icons';
import type { UserPublic } from '@tollway/shared';
import { Avatar, Card, Col, Row, Space, Statistic, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { roleKey, useQuotaFormat } from '../lib/self';
import { DisplayNameModal } from './DisplayNameModal';
import { TipButton } from './TipButton';

const ROLE_COLOR = { root: 'red', admin: 'gold', user: 'blue' } as const;

/** Balance card: identity, role label, balance, used quota and request count. */
export function ProfileCard({ user }: { user: UserPublic }) {
  const { t } = useTranslation('me');
  const fmt = useQuotaFormat();
  const [editing, setEditing] = useState(false);
  const name = user.display_name || user.username;
  const role = roleKey(user.role);
  return (
    <Card className="tw-balance" data-testid="me-balance-card" styles={{ body: { padding: 24 } }}>
      <Space size={14} align="center" style={{ marginBottom: 22 }} wrap>
        <Avatar size={52} style={{ background: 'rgba(255,255,255,0.22)', fontSize: 22, fontWeight: 600 }}>
          {name.slice(0, 1).toUpperCase()}
        </Avatar>
        <div>
          <Space size={6} align="center" wrap>
            <Typography.Title level={4} style={{ margin: 0 }} data-testid="me-display-name">
              {name}
            </Typography.Title>
            <TipButton
              subtle
              label={t('profile.editName')}
              icon={<EditOutlined />}
              style={{ color: '#fff' }}
              data-testid="me-edit-name"
              onClick={() => setEditing(true)}
            />
            <Tag color={ROLE_COLOR[role]} data-testid="me-role">
              {t(`role.${role}`)}
            </Tag>
          </Space>
          <div>
            <Typography.Text className="tw-balance-sub">
              @{user.username} · {t('profile.id')} {user.id} · {t('profile.group')} {user.group}
            </Typography.Text>
          </div>
        </div>
      </Space>
      <Row gutter={[16, 16]}>
        <Col xs={24} sm={8}>
          <Statistic title={t('balance.title')} value={fmt(user.quota)} data-testid="me-quota" />
        </Col>
        <Col xs={12} sm={8}>
          <Statistic title={t('balance.used')} value={fmt(user.used_quota)} data-testid="me-used-quota" />
        </Col>
        <Col xs={12} sm={8}>
          <Statistic title={t('balance.requests')} value={user.request_count} data-testid="me-request-count" />
        </Col>
      </Row>
      <DisplayNameModal open={editing} current={user.display_name} onClose={() => setEditing(false)} />
    </Card>
  );
}

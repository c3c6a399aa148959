import { Col, Form, Input, Row } from 'antd';
import { useTranslation } from 'react-i18next';
import type { AdminUser } from '../api';

const BINDINGS = ['github_id', 'oidc_id', 'wechat_id', 'telegram_id', 'linux_do_id'] as const;

/** External account ids, shown read-only. */
export function BindingsBlock({ user }: { user: AdminUser }) {
  const { t } = useTranslation('users');
  return (
    <Row gutter={16}>
      {BINDINGS.map((k) => (
        <Col xs={24} md={12} key={k}>
          <Form.Item label={t(`field.${k}`)}>
            <Input
              value={user[k] || ''}
              placeholder={t('placeholder.unbound')}
              readOnly
              data-testid={`user-form-${k}`}
            />
          </Form.Item>
        </Col>
      ))}
    </Row>
  );
}

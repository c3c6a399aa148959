import { Card, Typography } from 'antd';
import type { ReactNode } from 'react';
import { DEFAULT_LOGO } from '../../lib/logo';
import { useStatus } from '../../lib/status';

/** Centred card with the system logo used by the login, register and reset pages. */
export function AuthCard({
  title,
  subtitle,
  children,
  testId,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  const { data: status } = useStatus();
  return (
    <div className="tw-auth" data-testid={testId}>
      <Card className="tw-auth-card" styles={{ body: { padding: '32px 28px 24px' } }}>
        <div className="tw-auth-head">
          <img src={status?.logo || DEFAULT_LOGO} alt="" onError={(e) => (e.currentTarget.src = DEFAULT_LOGO)} />
          <Typography.Title level={3} style={{ margin: 0 }}>
            {title}
          </Typography.Title>
          {subtitle && <Typography.Text type="secondary">{subtitle}</Typography.Text>}
        </div>
        {children}
      </Card>
    </div>
  );
}

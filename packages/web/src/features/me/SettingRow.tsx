import { Typography } from 'antd';
import type { ReactNode } from 'react';

/** One row of the security card: icon, title, description and an action on the right. */
export function SettingRow({ icon, title, desc, action, children }: { icon: ReactNode; title: ReactNode; desc: ReactNode; action: ReactNode; children?: ReactNode }) {
  return (
    <div style={{ padding: '12px 0' }}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 12 }}>
        <span style={{ fontSize: 18, opacity: 0.75 }}>{icon}</span>
        <div style={{ flex: 1, minWidth: 0 }}>
          <Typography.Text strong>{title}</Typography.Text>
          <br />
          <Typography.Text type="secondary" style={{ fontSize: 13 }}>
            {desc}
          </Typography.Text>
        </div>
        <div style={{ flex: 'none' }}>{action}</div>
      </div>
      {children}
    </div>
  );
}

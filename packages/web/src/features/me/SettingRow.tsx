import { Typography } from 'antd';
import type { ReactNode } from 'react';

/** A setting's title in bold over its description. */
export function SettingText({ title, desc }: { title: ReactNode; desc: ReactNode }) {
  return (
    <>
      <Typography.Text strong>{title}</Typography.Text>
      <br />
      <Typography.Text type="secondary" style={{ fontSize: 13 }}>
        {desc}
      </Typography.Text>
    </>
  );
}

/** One row of the security card: icon, title, description and an action on the right. */
export function SettingRow({
  icon,
  title,
  desc,
  action,
  children,
}: {
  icon: ReactNode;
  title: ReactNode;
  desc: ReactNode;
  action: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div style={{ padding: '12px 0' }}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 12 }}>
        <span style={{ fontSize: 18, opacity: 0.75 }}>{icon}</span>
        <div style={{ flex: 1, minWidth: 0 }}>
          <SettingText title={title} desc={desc} />
        </div>
        <div style={{ flex: 'none' }}>{action}</div>
      </div>
      {children}
    </div>
  );
}

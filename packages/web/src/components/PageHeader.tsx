import { Typography } from 'antd';
import type { ReactNode } from 'react';

const PAGE_TITLE = { margin: 0, fontSize: 24, lineHeight: 1.33 };

/** Title row of a console page. */
export function PageHeader({ title, subtitle, extra }: { title: ReactNode; subtitle?: ReactNode; extra?: ReactNode }) {
  return (
    <div className="tw-page-header">
      <div>
        {/* The page's one level-one heading, drawn at the size of a level three. */}
        <Typography.Title level={1} style={PAGE_TITLE}>
          {title}
        </Typography.Title>
        {subtitle && <Typography.Text type="secondary">{subtitle}</Typography.Text>}
      </div>
      {extra}
    </div>
  );
}

import { Result } from 'antd';
import type { ReactNode } from 'react';

interface Props {
  title: ReactNode;
  detail: ReactNode;
  /** The way out, e.g. a retry or back button. */
  action: ReactNode;
  testid: string;
}

/** A whole-page error: what failed, why, and the way out, centred. */
export function ErrorScreen({ title, detail, action, testid }: Props) {
  return (
    <div className="tw-center-page" data-testid={testid}>
      <Result status="error" title={title} subTitle={detail} extra={action} />
    </div>
  );
}

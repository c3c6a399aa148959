import { Card } from 'antd';
import type { ReactNode } from 'react';

/** Padding of a list page's card: narrower on a phone, 24 px on a wide screen. */
const LIST_CARD_PADDING = 'clamp(12px, 3vw, 24px)';

/** The borderless card that holds a list page's toolbar and table. */
export function ListCard({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <Card variant="borderless" className={className} styles={{ body: { padding: LIST_CARD_PADDING } }}>
      {children}
    </Card>
  );
}

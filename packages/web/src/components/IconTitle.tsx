import type { ComponentType, CSSProperties, ReactNode } from 'react';

/** A card title led by its icon. */
export function IconTitle({
  icon: Icon,
  children,
}: {
  icon: ComponentType<{ style?: CSSProperties }>;
  children: ReactNode;
}) {
  return (
    <span>
      <Icon style={{ marginRight: 8 }} />
      {children}
    </span>
  );
}

import type { ReactNode } from 'react';

/** A titled block of the channel editor. */
export function Section({
  icon,
  title,
  extra,
  children,
}: {
  icon: ReactNode;
  title: ReactNode;
  extra?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="tw-ch-section">
      <header className="tw-ch-section-title">
        <span className="tw-ch-section-icon">{icon}</span>
        <span>{title}</span>
        {extra ? <span className="tw-ch-section-extra">{extra}</span> : null}
      </header>
      <div className="tw-ch-section-body">{children}</div>
    </section>
  );
}

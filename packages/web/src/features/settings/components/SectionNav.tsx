import { Anchor, theme } from 'antd';
import { useTranslation } from 'react-i18next';

export interface NavItem {
  /** Section id, as given to SettingsSection (its card is #section-<id>). */
  id: string;
  /** i18n key of the title in the settings namespace. */
  title: string;
}

/** Height of the shell's sticky top bar (--tw-header-h). */
const HEADER_OFFSET = 56;

/** A sticky row of links to the sections of a long tab. */
export function SectionNav({ items }: { items: NavItem[] }) {
  const { t } = useTranslation('settings');
  const { token } = theme.useToken();
  return (
    <Anchor
      direction="horizontal"
      replace
      offsetTop={HEADER_OFFSET}
      targetOffset={HEADER_OFFSET + 56}
      style={{ background: `var(--tw-bg, ${token.colorBgLayout})`, marginBottom: 12, paddingBlock: 6 }}
      items={items.map(({ id, title }) => ({ key: id, href: `#section-${id}`, title: t(title) }))}
    />
  );
}

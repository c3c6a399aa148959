import type { OptionKey } from '@tollway/shared';
import { Anchor, theme } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { canEditOption } from '../model/access';

export interface NavItem {
  /** Section id, as given to SettingsSection (its card is #section-<id>). */
  id: string;
  /** i18n key of the title in the settings namespace. */
  title: string;
  /**
   * The section's options, when the signed-in user may be shown none of them (root-only keys): the link is left out
   * as the section is (SettingsSection shows nothing without an editable key).
   */
  keys?: readonly OptionKey[];
}

/** Height of the shell's sticky top bar (--tw-header-h). */
const HEADER_OFFSET = 56;
/** The nav's height until it has been measured (one row of links). */
const NAV_HEIGHT_GUESS = 48;
/** Space left between the stuck nav and the top of the section it jumped to. */
const JUMP_GAP = 12;

/**
 * A sticky row of links to the sections of a long tab. A jump scrolls the section's top to just below the stuck nav,
 * whatever height the nav has (measured: it grows with larger text or a wrapped row), so the nav never covers it.
 */
export function SectionNav({ items }: { items: NavItem[] }) {
  const { t } = useTranslation('settings');
  const { token } = theme.useToken();
  const [navHeight, setNavHeight] = useState(NAV_HEIGHT_GUESS);
  const measure = useCallback((el: HTMLDivElement | null) => {
    if (!el) return;
    const update = () => setNavHeight(Math.ceil(el.getBoundingClientRect().height));
    update();
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={measure}>
      <Anchor
        direction="horizontal"
        replace
        offsetTop={HEADER_OFFSET}
        targetOffset={HEADER_OFFSET + navHeight + JUMP_GAP}
        style={{ background: `var(--tw-bg, ${token.colorBgLayout})`, marginBottom: 12, paddingBlock: 6 }}
        items={items
          .filter((item) => !item.keys || item.keys.some(canEditOption))
          .map(({ id, title }) => ({ key: id, href: `#section-${id}`, title: t(title) }))}
      />
    </div>
  );
}

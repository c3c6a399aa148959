import { useEffect } from 'react';
import { DEFAULT_ICON } from './logo';
import { useStatus } from './status';

/** Keeps the tab title and icon in line with the system name and logo from status. */
export function useDocumentMeta(): void {
  const { data: status } = useStatus();
  const name = status?.system_name;
  const logo = status?.logo;
  useEffect(() => {
    if (name) document.title = name;
  }, [name]);
  useEffect(() => {
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    // Set only when it changes: assigning the same address again makes the browser fetch the icon again.
    const href = logo || DEFAULT_ICON;
    if (link && link.getAttribute('href') !== href) link.href = href;
  }, [logo]);
}

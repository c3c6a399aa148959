import { useEffect } from 'react';
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
    if (link) link.href = logo || '/logo.svg';
  }, [logo]);
}

import { OrgStatus, orgCan, type Organization, type OrgCapability } from '@tollway/shared';
import { createContext, useContext } from 'react';

/** The organization an organization page shows, and what the caller's role allows there. */
export interface OrgView {
  org: Organization;
  /** orgCan for the caller's role; false for every write while the organization is disabled. */
  can: (what: OrgCapability) => boolean;
}

export const OrgContext = createContext<OrgView | undefined>(undefined);

/** The organization of the page (inside OrgPages only). */
export function useOrgView(): OrgView {
  const v = useContext(OrgContext);
  if (!v) throw new Error('useOrgView outside an organization page');
  return v;
}

/** Reading needs only the role; a disabled organization changes nothing (the server says so too). */
const READS: readonly OrgCapability[] = ['org.read', 'spend.all'];
export function orgView(org: Organization): OrgView {
  const enabled = org.status === OrgStatus.Enabled;
  return { org, can: (what) => orgCan(org.role, what) && (enabled || READS.includes(what)) };
}

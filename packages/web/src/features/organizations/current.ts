import { ORG_CONSOLE_BASE, type OrgRole } from '@tollway/shared';
import { useSyncExternalStore } from 'react';
import { getStoredUser } from '../../lib/storage';

/**
 * The organization the console works in, kept in local storage (`org-current`) for the signed-in user; none means
 * "Personal" (the person's own account). The sidebar and the header's switcher read it; the organization pages set
 * it from their address, so a link to an organization's page also switches to it.
 */
export interface CurrentOrg {
  /** The signed-in user the choice belongs to (another user signing in on this browser starts at Personal). */
  user_id: number;
  id: number;
  name: string;
  role: OrgRole;
}

const KEY = 'org-current';
const EVENT = 'tollway:org';
let snapshotRaw: string | null = null;
let snapshot: CurrentOrg | undefined;

function read(): CurrentOrg | undefined {
  const raw = localStorage.getItem(KEY);
  const user = getStoredUser();
  const key = `${raw ?? ''}|${user?.id ?? ''}`;
  if (key !== snapshotRaw) {
    snapshotRaw = key;
    let parsed: CurrentOrg | undefined;
    try {
      parsed = raw ? (JSON.parse(raw) as CurrentOrg) : undefined;
    } catch {
      parsed = undefined;
    }
    snapshot = parsed && user && parsed.user_id === user.id && parsed.id > 0 ? parsed : undefined;
  }
  return snapshot;
}

function subscribe(listener: () => void): () => void {
  window.addEventListener(EVENT, listener);
  window.addEventListener('storage', listener);
  // The stored user changing (sign-in, sign-out) changes whose choice applies.
  window.addEventListener('tollway:user', listener);
  return () => {
    window.removeEventListener(EVENT, listener);
    window.removeEventListener('storage', listener);
    window.removeEventListener('tollway:user', listener);
  };
}

/** The chosen organization, or undefined for Personal. Re-renders on change. */
export function useCurrentOrg(): CurrentOrg | undefined {
  return useSyncExternalStore(subscribe, read);
}

/** Chooses an organization (undefined: Personal). */
export function setCurrentOrg(org: Omit<CurrentOrg, 'user_id'> | undefined): void {
  const user = getStoredUser();
  const next = org && user ? { user_id: user.id, id: org.id, name: org.name, role: org.role } : undefined;
  const prev = read();
  if (
    prev?.id === next?.id &&
    prev?.name === next?.name &&
    prev?.role === next?.role &&
    prev?.user_id === next?.user_id
  )
    return;
  if (next) localStorage.setItem(KEY, JSON.stringify(next));
  else localStorage.removeItem(KEY);
  window.dispatchEvent(new Event(EVENT));
}

/** The organization pages, in the sidebar's order. */
export const ORG_PAGES = ['overview', 'members', 'teams', 'tokens', 'budgets', 'spend', 'logs'] as const;
export type OrgPage = (typeof ORG_PAGES)[number];

export const orgPath = (id: number, page: OrgPage = 'overview') => `${ORG_CONSOLE_BASE}/${id}/${page}`;

/** The organization id of a console address under the organization pages (not the invitation page), or undefined. */
export function orgIdOfPath(pathname: string): number | undefined {
  if (!pathname.startsWith(`${ORG_CONSOLE_BASE}/`)) return undefined;
  const id = Number(pathname.slice(ORG_CONSOLE_BASE.length + 1).split('/')[0]);
  return Number.isInteger(id) && id > 0 ? id : undefined;
}

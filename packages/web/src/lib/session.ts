import { useSyncExternalStore } from 'react';
import { apiGet } from './api';
import { clearStoredUser, getStoredUser, setStoredUser, type StoredUser } from './storage';

/** Custom event fired whenever this tab changes the stored user. */
const EVENT = 'tollway:user';
let snapshotRaw: string | null = null;
let snapshot: StoredUser | undefined;
/** True after this tab logged out or deleted the account on purpose (guards then skip returnTo). */
let leftOnPurpose = false;

export function signedOutOnPurpose(): boolean {
  return leftOnPurpose;
}

function read(): StoredUser | undefined {
  const raw = localStorage.getItem('user');
  if (raw !== snapshotRaw) {
    snapshotRaw = raw;
    snapshot = getStoredUser();
  }
  return snapshot;
}

function subscribe(listener: () => void): () => void {
  window.addEventListener(EVENT, listener);
  window.addEventListener('storage', listener);
  return () => {
    window.removeEventListener(EVENT, listener);
    window.removeEventListener('storage', listener);
  };
}

/** The logged-in user kept under the `user` key; undefined means logged out. Re-renders on change. */
export function useStoredUser(): StoredUser | undefined {
  return useSyncExternalStore(subscribe, read);
}

/** Stores the user returned by login (keeping only the fields the client needs plus the rest of the record). */
export function signIn(user: StoredUser): void {
  leftOnPurpose = false;
  setStoredUser(user);
  window.dispatchEvent(new Event(EVENT));
}

/** Updates fields of the stored user (for example after the display name changes). */
export function patchStoredUser(patch: Partial<StoredUser>): void {
  const current = getStoredUser();
  if (!current) return;
  setStoredUser({ ...current, ...patch });
  window.dispatchEvent(new Event(EVENT));
}

/** Clears the stored user locally (a deliberate log-out or account deletion). */
export function forgetUser(): void {
  leftOnPurpose = true;
  clearStoredUser();
  window.dispatchEvent(new Event(EVENT));
}

/** GET /api/user/logout, then clear the stored user whatever the answer. */
export async function signOut(): Promise<void> {
  try {
    await apiGet('/api/user/logout', { silent: true });
  } catch {
    /* the local session ends regardless */
  }
  forgetUser();
}

/** Only same-site relative paths are accepted as a post-login destination. */
export function safeReturnTo(value: string | null | undefined, fallback = '/app/tokens'): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/login')) return fallback;
  return value;
}

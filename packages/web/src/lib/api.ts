import { TWO_FACTOR_SETUP_REQUIRED, type Page } from '@tollway/shared';
import { clearStoredUser, getStoredUser } from './storage';
import i18n from '../i18n';
import { refusalText, type Refusal } from './refusal-text';

/** The envelope every management call answers with. */
export interface Envelope<T> extends Refusal {
  success: boolean;
  data?: T;
}

export class ApiFailure extends Error {
  constructor(
    message: string,
    public readonly status: number,
  ) {
    super(message);
  }
}

type Notify = (message: string) => void;
let notifyError: Notify = (m) => console.error(m);
/** The app shell installs the toast function here (antd's message API needs a React context). */
export function setErrorNotifier(fn: Notify): void {
  notifyError = fn;
}

/**
 * Whether the page is already on its way to another address. Several calls of one screen often fail the same way
 * at once (401, or 2FA setup required); only the first leaves, as a second assignment would abort the first load.
 */
let leaving = false;
function leaveFor(href: string): void {
  if (leaving) return;
  leaving = true;
  window.location.href = href;
}

export function redirectToLogin(): void {
  clearStoredUser();
  const here = window.location.pathname + window.location.search;
  if (window.location.pathname.startsWith('/login')) return;
  leaveFor(`/login?expired=true&returnTo=${encodeURIComponent(here)}`);
}

/** An administrator who must set up two-factor sign-in first is taken to its setup (personal settings). */
function redirectToTwoFactorSetup(): void {
  if (window.location.pathname === TWO_FACTOR_SETUP_PATH) return;
  leaveFor(`${TWO_FACTOR_SETUP_PATH}?twofa=setup`);
}
const TWO_FACTOR_SETUP_PATH = '/app/me';

/**
 * Calls the management API. Adds the New-Api-User and no-store headers, sends 401 to the login page, names 429, 5xx and 405 (demo site) in a notice,
 * and on `success:false` (a refusal: HTTP 200 on /api, as in new-api) shows the server message (its code's text in the viewer's language) and throws (so callers do nothing more for that call).
 */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  opts: { silent?: boolean } = {},
): Promise<Envelope<T>> {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  const user = getStoredUser();
  if (user) headers['New-Api-User'] = String(user.id);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    const msg = i18n.t('common:error.network');
    if (!opts.silent) notifyError(msg);
    throw new ApiFailure(msg, 0);
  }
  let env: Envelope<T> | undefined;
  try {
    env = (await res.json()) as Envelope<T>;
  } catch {
    env = undefined;
  }
  if (res.status === 401) {
    redirectToLogin();
    throw new ApiFailure(env?.message ?? 'unauthorized', 401);
  }
  if (res.status === 403 && env?.message === TWO_FACTOR_SETUP_REQUIRED) {
    redirectToTwoFactorSetup();
    throw new ApiFailure(env.message, 403);
  }
  let message: string | undefined;
  if (res.status === 429) message = i18n.t('common:error.tooMany');
  // Only 500 is the generic text; a 502/503 carries the server's own message.
  else if (res.status === 500) message = i18n.t('common:error.server');
  else if (res.status === 405) message = i18n.t('common:error.demo');
  else if (!env) message = i18n.t('common:error.http', { message: res.statusText || res.status });
  else if (!env.success)
    message = env.message ? await refusalText(env) : i18n.t('common:error.http', { message: res.status });
  if (message !== undefined) {
    if (!opts.silent) notifyError(message);
    throw new ApiFailure(message, res.status);
  }
  return env!;
}

export const apiGet = <T>(path: string, opts?: { silent?: boolean }) =>
  api<T>('GET', path, undefined, opts).then((e) => e.data as T);
export const apiPost = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const apiPut = <T>(path: string, body?: unknown) => api<T>('PUT', path, body ?? {});
export const apiDelete = <T>(path: string) => api<T>('DELETE', path);

/** GETs one page of a listing; a missing answer reads as an empty page `page`. */
export const apiGetPage = <T>(path: string, page: number): Promise<Page<T>> =>
  apiGet<Page<T> | undefined>(path).then((d) => ({
    items: d?.items ?? [],
    page: d?.page ?? page,
    page_size: d?.page_size ?? 0,
    total: d?.total ?? 0,
  }));

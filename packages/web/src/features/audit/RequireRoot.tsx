import { Navigate, Outlet, useLocation } from 'react-router';
import { isRoot } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { StatusPage } from '../../layout/StatusPage';
import { signedOutOnPurpose, useStoredUser } from '../../lib/session';

/**
 * Root-only routes: no stored user goes to /login (remembering the origin unless they signed out), anyone else sees the
 * 403 page (the page and its API calls never start; the API refuses them regardless).
 */
export function RequireRoot() {
  const { t } = useTranslation('shell');
  const user = useStoredUser();
  const { pathname, search } = useLocation();
  if (!user)
    return (
      <Navigate
        to={signedOutOnPurpose() ? '/login' : `/login?returnTo=${encodeURIComponent(pathname + search)}`}
        replace
      />
    );
  if (!isRoot(user.role))
    return <StatusPage status="403" testId="forbidden" title={t('forbidden.title')} hint={t('forbidden.rootHint')} />;
  return <Outlet />;
}

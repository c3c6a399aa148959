import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, useLocation } from 'react-router';
import { isAdmin } from '@tollway/shared';
import { ApiFailure } from '../lib/api';
import { useStatus } from '../lib/status';
import { PageFallback } from '../layout/AppLayout';
import { Forbidden } from '../layout/Forbidden';
import { signedOutOnPurpose, useStoredUser } from '../lib/session';
import { setupJustCompleted } from '../features/setup/setupState';

/**
 * Loads GET /api/status and forces /setup until the system is set up; /setup goes home once it is.
 * Shows why the status did not load (server unreachable or answering an error), with a retry, when there is no cached status to fall back on.
 */
export function StatusGate() {
  const { t } = useTranslation('shell');
  const { pathname } = useLocation();
  const { data, error, isFetching, dataUpdatedAt, refetch } = useStatus();
  if (!data) {
    if (error) {
      const unsuccessful = error instanceof ApiFailure && error.status !== 0;
      return (
        <div className="tw-center-page" data-testid="status-error">
          <Result
            status="warning"
            title={unsuccessful ? t('status.connectFailed') : t('status.loadFailed')}
            subTitle={error.message}
            extra={
              <Button type="primary" loading={isFetching} onClick={() => void refetch()}>
                {t('status.retry')}
              </Button>
            }
          />
        </div>
      );
    }
    return <PageFallback />;
  }
  const onSetup = pathname === '/setup' || pathname.startsWith('/setup/');
  if (data.setup === false && !setupJustCompleted()) {
    // A cached "not set up" may be stale: wait for the fresh answer before redirecting.
    if (dataUpdatedAt === 0 && isFetching) return <PageFallback />;
    if (!onSetup) return <Navigate to="/setup" replace />;
  } else if (onSetup && data.setup === true && !setupJustCompleted()) {
    return <Navigate to="/" replace />;
  }
  return <Outlet />;
}

function loginTarget(pathname: string, search: string): string {
  if (signedOutOnPurpose()) return '/login';
  return `/login?returnTo=${encodeURIComponent(pathname + search)}`;
}

/** Sends a visitor without a stored user to /login, remembering the origin. */
export function RequireAuth() {
  const user = useStoredUser();
  const { pathname, search } = useLocation();
  if (!user) return <Navigate to={loginTarget(pathname, search)} replace />;
  return <Outlet />;
}

/** Admin-only routes: no stored user goes to /login, a non-admin sees the 403 page (the admin page never loads, so no refused calls). */
export function RequireAdmin() {
  const user = useStoredUser();
  const { pathname, search } = useLocation();
  if (!user) return <Navigate to={loginTarget(pathname, search)} replace />;
  if (!isAdmin(user.role)) return <Forbidden />;
  return <Outlet />;
}

import { lazy, Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { isAdmin, isDocsPage } from '@tollway/shared';
import { useStatus } from '../lib/status';
import { PageFallback } from '../layout/AppLayout';
import { Forbidden } from '../layout/Forbidden';
import { signedOutOnPurpose, useStoredUser } from '../lib/session';
import { setupJustCompleted } from '../features/setup/setupState';

const StatusError = lazy(() => import('./StatusError'));

/**
 * Loads GET /api/status and forces /setup until the system is set up; /setup goes home once it is.
 * Shows why the status did not load (server unreachable or answering an error), with a retry, when there is no cached status to fall back on.
 */
export function StatusGate() {
  const { pathname } = useLocation();
  const { data, error, isFetching, dataUpdatedAt, refetch } = useStatus();
  if (!data) {
    if (error) {
      return (
        <Suspense fallback={<PageFallback />}>
          <StatusError error={error} retrying={isFetching} onRetry={() => void refetch()} />
        </Suspense>
      );
    }
    return <PageFallback />;
  }
  const onSetup = pathname === '/setup' || pathname.startsWith('/setup/');
  if (data.setup === false && !setupJustCompleted()) {
    // A cached "not set up" may be stale: wait for the fresh answer before redirecting.
    if (dataUpdatedAt === 0 && isFetching) return <PageFallback />;
    // The docs stay readable before setup (how to install and configure what is being set up).
    if (!onSetup && !isDocsPage(pathname)) return <Navigate to="/setup" replace />;
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

/**
 * Admin-only routes: no stored user goes to /login, a non-admin sees the 403 page, or goes home where the spec says
 * so (`nonAdmin="home"`); either way the admin page never loads, so no refused calls.
 */
export function RequireAdmin({ nonAdmin = 'forbidden' }: { nonAdmin?: 'forbidden' | 'home' }) {
  const user = useStoredUser();
  const { pathname, search } = useLocation();
  if (!user) return <Navigate to={loginTarget(pathname, search)} replace />;
  if (!isAdmin(user.role)) return nonAdmin === 'home' ? <Navigate to="/" replace /> : <Forbidden />;
  return <Outlet />;
}

import { Navigate, Outlet, useLocation } from 'react-router';
import { isRoot } from '@tollway/shared';
import { useStoredUser } from '../../lib/session';

/** Root-only routes: no stored user goes to /login, anyone else to /. (The API refuses them regardless.) */
export function RequireRoot() {
  const user = useStoredUser();
  const { pathname, search } = useLocation();
  if (!user) return <Navigate to={`/login?returnTo=${encodeURIComponent(pathname + search)}`} replace />;
  if (!isRoot(user.role)) return <Navigate to="/" replace />;
  return <Outlet />;
}

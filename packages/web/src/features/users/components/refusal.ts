import { Role, type UserManageAction } from '@tollway/shared';
import type { AdminUser } from '../api';

/** Why the server would refuse `action` on `target` by `actor` (a key under users:refused), or null when it would not. Mirrors modules/users/admin.ts. */
export function manageRefusal(
  actor: { id: number; role: number } | undefined,
  target: AdminUser,
  action: UserManageAction,
): string | null {
  if (target.role >= Role.Root && action !== 'enable') return 'root';
  if (actor && target.id === actor.id) return 'self';
  if (actor && target.role >= actor.role) return 'outranked';
  if (action === 'promote') {
    if (actor && actor.role < Role.Root) return 'promoteRootOnly';
    if (target.role >= Role.Admin) return 'alreadyAdmin';
  }
  if (action === 'demote' && target.role < Role.Admin) return 'alreadyCommon';
  return null;
}

/**
 * Why the server would refuse to edit `target` (or change its balance) for `actor`, or null: only users below the
 * actor's level, and the super administrator's own account. Mirrors assertOutranks in modules/users/admin.ts.
 */
export function editRefusal(actor: { id: number; role: number } | undefined, target: AdminUser): string | null {
  if (!actor) return null;
  if (target.id === actor.id) return actor.role >= Role.Root ? null : 'self';
  return target.role >= actor.role ? 'outranked' : null;
}

/**
 * Why the server would refuse to reset `target`'s two-factor sign-in for `actor`, or null: never one's own (that is
 * done in personal settings), only users below the actor's level. Mirrors adminReset in modules/twofa/service.ts.
 */
export function twoFactorResetRefusal(
  actor: { id: number; role: number } | undefined,
  target: AdminUser,
): string | null {
  if (!actor) return null;
  if (target.id === actor.id) return 'twoFactorSelf';
  return target.role >= actor.role ? 'outranked' : null;
}

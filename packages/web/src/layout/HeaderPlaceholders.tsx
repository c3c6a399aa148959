import type { StoredUser } from '../lib/storage';

/*
 * Stand-ins of the header's lazily loaded parts, the same size as the parts themselves: when the part arrives the
 * header's buttons do not move (a click aimed at the theme or language button must not land on another one).
 */

/** The inbox bell's room (a 32 px round button). */
export function InboxBellPlaceholder() {
  return <span className="tw-header-slot" aria-hidden="true" />;
}

/** The user menu's button drawn without its dropdown: avatar initial and, on wide screens, the username. */
export function UserMenuPlaceholder({ user, compact }: { user: StoredUser; compact: boolean }) {
  const name = user.display_name || user.username;
  return (
    <span className="tw-user-btn tw-user-btn-placeholder" aria-hidden="true">
      <span className="tw-avatar tw-avatar-placeholder">{name ? name.slice(0, 1).toUpperCase() : null}</span>
      {!compact && <span className="tw-user-name">{user.username}</span>}
    </span>
  );
}

/** User roles: ordinary user, administrator, super administrator (root). */
export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

/** User status: 1 active, 2 banned. */
export const UserStatus = { Enabled: 1, Disabled: 2 } as const;

/** Permission level a route declares. */
export type AccessLevel = 'public' | 'user' | 'admin' | 'root';

export const accessLevelMinRole: Record<AccessLevel, number> = {
  public: Role.Guest,
  user: Role.Common,
  admin: Role.Admin,
  root: Role.Root,
};

export function isAdmin(role: number | undefined): boolean {
  return (role ?? 0) >= Role.Admin;
}

export function isRoot(role: number | undefined): boolean {
  return (role ?? 0) >= Role.Root;
}

/** How a model is billed on the pricing page: by its ratios, or at a fixed price per call (or per task). */
export const QuotaType = { Ratio: 0, Price: 1 } as const;

/** Log record types. */
export const LogType = { Unknown: 0, Topup: 1, Consume: 2, Manage: 3, System: 4, CheckIn: 5, Error: 6 } as const;

/** Admin actions on a user. */
export const UserManageActions = ['promote', 'demote', 'disable', 'enable', 'delete'] as const;
export type UserManageAction = (typeof UserManageActions)[number];

export const DEFAULT_GROUP = 'default';
/** The token group that stands for the AutoGroups chain (new-api's name): a call is served in the first that can. */
export const AUTO_GROUP = 'auto';

import { ErrorCode, isAdmin, isOrgRole, OrgStatus, orgCan, type OrgCapability, type OrgRole } from '@tollway/shared';
import type { Selectable } from 'kysely';
import type { AuthUser } from '../../core/auth-user.js';
import type { Db } from '../../db/connect.js';
import type { OrganizationsTable } from '../../db/schema-organizations.js';
import { notFound, refused } from '../../lib/errors.js';

export type OrgRow = Selectable<OrganizationsTable>;

/** A caller's standing in one organization: the row, their role, and whether it comes from being a system admin. */
export interface OrgAccess {
  org: OrgRow;
  role: OrgRole;
  /** A system admin or root acting on an organization they are not an owner of (audited as such). */
  asSystemAdmin: boolean;
}

export const ORG_ACCESS_MSG = {
  notFound: 'organization not found',
  forbidden: 'your role in this organization does not allow this',
  disabled: 'this organization is disabled',
} as const;

/** The organization `orgId` (not deleted), or undefined. */
export function findOrg(db: Db, orgId: number): Promise<OrgRow | undefined> {
  return db.kysely
    .selectFrom('organizations')
    .selectAll()
    .where('id', '=', orgId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The caller's role in `orgId` as a member (undefined: not one). */
export async function memberRole(db: Db, orgId: number, userId: number): Promise<OrgRole | undefined> {
  const row = await db.kysely
    .selectFrom('org_members')
    .select('role')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && isOrgRole(row.role) ? row.role : undefined;
}

/**
 * The one gate of every /api/org/:id route: the caller's access to the organization, with `need` allowed. Not a
 * member (nor a system admin): 404, as for an organization that does not exist, so ids of others tell nothing. A
 * member whose role lacks `need`: org_forbidden (the route's own rule, 403). A disabled organization is readable by
 * its members but changes nothing (`write`), except by system admins, who enable it again.
 */
export async function requireOrg(
  db: Db,
  user: AuthUser,
  orgId: number,
  need: OrgCapability,
  opts: { write?: boolean } = {},
): Promise<OrgAccess> {
  const org = await findOrg(db, orgId);
  if (!org) throw notFound(ORG_ACCESS_MSG.notFound, ErrorCode.OrgNotFound);
  const own = await memberRole(db, orgId, user.id);
  const admin = isAdmin(user.role);
  const role: OrgRole | undefined = admin ? 'owner' : own;
  if (!role) throw notFound(ORG_ACCESS_MSG.notFound, ErrorCode.OrgNotFound);
  if (!orgCan(role, need)) throw refused(ORG_ACCESS_MSG.forbidden, ErrorCode.OrgForbidden, { need });
  if (opts.write && !admin && Number(org.status) !== OrgStatus.Enabled)
    throw refused(ORG_ACCESS_MSG.disabled, ErrorCode.OrgDisabled);
  return { org, role, asSystemAdmin: admin && own !== 'owner' };
}

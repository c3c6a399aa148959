import { ErrorCode, orgCan, TokenStatus, type OrgMember, type OrgRole } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { coded, notFound, refused } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { ORG_ACCESS_MSG, type OrgAccess } from './access.js';
import { OrganizationsStore } from './store.js';

export const MEMBER_MSG = {
  notFound: 'this user is not a member of the organization',
  lastOwner: 'an organization keeps at least one owner',
  ownerOnly: 'only an owner grants or takes the owner role',
} as const;

type Deps = Pick<AppContext, 'db' | 'users'>;

/** Members of an organization: the list, roles, removal (by an admin, or leaving), and what removal ends. */
export class MembersService {
  readonly store: OrganizationsStore;

  constructor(private readonly deps: Deps) {
    this.store = new OrganizationsStore(deps.db);
  }

  async list(access: OrgAccess): Promise<OrgMember[]> {
    const [rows, teams] = await Promise.all([
      this.store.members(access.org.id),
      this.store.teamIdsByMember(access.org.id),
    ]);
    return rows.map((m) => ({
      user_id: m.user_id,
      username: m.username,
      display_name: m.display_name,
      email: m.email,
      role: m.role as OrgRole,
      team_ids: teams.get(m.user_id) ?? [],
      joined_at: Number(m.created_at),
    }));
  }

  private async target(access: OrgAccess, userId: number) {
    const m = await this.store.member(access.org.id, userId);
    if (!m) throw notFound(MEMBER_MSG.notFound, ErrorCode.OrgMemberNotFound);
    return m;
  }

  /** The owner role is given and taken by owners only; the last owner keeps it. */
  private async checkOwnerChange(access: OrgAccess, from: string, to: string | undefined): Promise<void> {
    if (from !== 'owner' && to !== 'owner') return;
    if (!orgCan(access.role, 'org.own'))
      throw refused(MEMBER_MSG.ownerOnly, ErrorCode.OrgForbidden, { need: 'org.own' });
    if (from === 'owner' && to !== 'owner' && (await this.store.countMembers(access.org.id, 'owner')) <= 1)
      throw coded(ErrorCode.OrgLastOwner, MEMBER_MSG.lastOwner);
  }

  async setRole(access: OrgAccess, userId: number, role: OrgRole): Promise<void> {
    const m = await this.target(access, userId);
    if (m.role === role) return;
    await this.checkOwnerChange(access, m.role, role);
    await this.store.setRole(access.org.id, userId, role);
  }

  /**
   * Removes a member (members.manage), or the caller leaves (anyone but the last owner). Their team places go, and
   * their organization tokens are disabled at once on every node (the relay reloads the wallet's tokens).
   */
  async remove(access: OrgAccess, caller: AuthUser, userId: number): Promise<void> {
    const self = caller.id === userId;
    if (!self && !orgCan(access.role, 'members.manage'))
      throw refused(ORG_ACCESS_MSG.forbidden, ErrorCode.OrgForbidden, { need: 'members.manage' });
    const m = await this.target(access, userId);
    if (m.role === 'owner') {
      if (!self) await this.checkOwnerChange(access, 'owner', undefined);
      else if ((await this.store.countMembers(access.org.id, 'owner')) <= 1)
        throw coded(ErrorCode.OrgLastOwner, MEMBER_MSG.lastOwner);
    }
    const orgId = access.org.id;
    const walletId = Number(access.org.wallet_user_id);
    await this.deps.db.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom('org_members').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      await trx.deleteFrom('org_team_members').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      await trx
        .updateTable('tokens')
        .set({ status: TokenStatus.Disabled })
        .where('user_id', '=', walletId)
        .where('member_id', '=', userId)
        .execute();
    });
    await this.deps.users.notifyChanged(walletId);
  }
}

export const membersOf = perContext((ctx) => new MembersService(ctx));

import {
  ErrorCode,
  isAdmin,
  ORG_CREATED_MAX,
  OrgStatus,
  UserStatus,
  isOrgRole,
  type Organization,
  type OrgRole,
  type OrgUpdateBody,
  type Page,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { coded, refused } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { assertWebhookUrlAllowed } from '../notifications/webhook-url.js';
import { requireOrg, type OrgAccess, type OrgRow } from './access.js';
import { OrganizationsStore } from './store.js';

export const ORG_MSG = {
  createOff: 'users may not create organizations on this system',
  createCap: (max: number) => `you have created the most organizations allowed (${max})`,
  resellerOff: 'this organization is not allowed to set its own prices',
  webhookUrl: 'alert_webhook_url must be an http(s) address',
} as const;

/** Option: whether people who are not system admins may create organizations. */
export const ORG_CREATE_OPTION = 'OrganizationCreateByUsers' as const;

type Deps = Pick<AppContext, 'db' | 'options' | 'users' | 'secretBox' | 'tokenChanges'>;

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The organization as a member sees it: wallet balance, member count, their role. */
export function toOrganization(
  row: OrgRow,
  role: OrgRole,
  wallet: { quota: number; used_quota: number } | undefined,
  members: number,
): Organization {
  return {
    id: row.id,
    name: row.name,
    status: Number(row.status),
    wallet_user_id: Number(row.wallet_user_id),
    quota: wallet?.quota ?? 0,
    used_quota: wallet?.used_quota ?? 0,
    role,
    member_count: members,
    reseller: Number(row.reseller) === 1,
    markup_bp: Number(row.markup_bp),
    alert_webhook_url: row.alert_webhook_url,
    mcp_allow_tools: row.mcp_allow_tools ?? '',
    mcp_deny_tools: row.mcp_deny_tools ?? '',
    created_at: Number(row.created_at),
  };
}

/** Organizations: creating, listing, changing and ending them (members, teams and tokens have their own services). */
export class OrganizationsService {
  readonly store: OrganizationsStore;

  constructor(private readonly deps: Deps) {
    this.store = new OrganizationsStore(deps.db);
  }

  private async views(rows: (OrgRow & { role?: string })[], roleOf: (r: OrgRow) => OrgRole): Promise<Organization[]> {
    const [wallets, counts] = await Promise.all([
      this.store.wallets(rows.map((r) => Number(r.wallet_user_id))),
      this.store.memberCounts(rows.map((r) => r.id)),
    ]);
    return rows.map((r) => toOrganization(r, roleOf(r), wallets.get(Number(r.wallet_user_id)), counts.get(r.id) ?? 0));
  }

  async view(access: OrgAccess): Promise<Organization> {
    return (await this.views([access.org], () => access.role))[0]!;
  }

  /** The caller's organizations (as a member; a system admin's list is the same, GET /api/org/all shows every one). */
  async mine(user: AuthUser): Promise<Organization[]> {
    const rows = await this.store.ofMember(user.id);
    return this.views(rows, (r) => {
      const role = (r as OrgRow & { role: string }).role;
      return isOrgRole(role) ? role : 'viewer';
    });
  }

  async all(q: { p: number; page_size: number; keyword?: string }): Promise<Page<Organization>> {
    const page = Math.max(1, q.p);
    const { rows, total } = await this.store.page((page - 1) * q.page_size, q.page_size, q.keyword ?? '');
    return { items: await this.views(rows, () => 'owner'), page, page_size: q.page_size, total };
  }

  async create(user: AuthUser, name: string): Promise<Organization> {
    if (!isAdmin(user.role)) {
      if (!this.deps.options.bool(ORG_CREATE_OPTION)) throw refused(ORG_MSG.createOff, ErrorCode.OrgCreateOff);
      if ((await this.store.countCreatedBy(user.id)) >= ORG_CREATED_MAX)
        throw coded(ErrorCode.OrgCreateCap, ORG_MSG.createCap(ORG_CREATED_MAX), { max: ORG_CREATED_MAX });
    }
    const id = await this.store.create(name, user, nowSeconds());
    return this.view(await requireOrg(this.deps.db, user, id, 'org.read'));
  }

  async update(access: OrgAccess, body: OrgUpdateBody): Promise<Organization> {
    const { org } = access;
    const fields: Partial<OrgRow> = {};
    if (body.name !== undefined) fields.name = body.name;
    if (body.alert_webhook_url !== undefined) {
      if (body.alert_webhook_url && !isHttpUrl(body.alert_webhook_url))
        throw coded(ErrorCode.InvalidInput, ORG_MSG.webhookUrl);
      // The outbound guard decides now, as it will at each send (private addresses, schemes, the fetch settings).
      if (body.alert_webhook_url) await assertWebhookUrlAllowed(this.deps.options, body.alert_webhook_url);
      fields.alert_webhook_url = body.alert_webhook_url;
    }
    if (body.mcp_allow_tools !== undefined) fields.mcp_allow_tools = body.mcp_allow_tools;
    if (body.mcp_deny_tools !== undefined) fields.mcp_deny_tools = body.mcp_deny_tools;
    if (body.alert_webhook_secret !== undefined)
      fields.alert_webhook_secret = this.deps.secretBox.seal(body.alert_webhook_secret);
    if (body.markup_bp !== undefined && body.markup_bp !== Number(org.markup_bp)) {
      if (access.role !== 'owner')
        throw refused('only an owner sets prices', ErrorCode.OrgForbidden, { need: 'org.own' });
      if (Number(org.reseller) !== 1) throw refused(ORG_MSG.resellerOff, ErrorCode.OrgResellerOff);
      fields.markup_bp = body.markup_bp;
    }
    await this.store.update(org.id, fields);
    if (fields.name !== undefined)
      await this.deps.db.kysely
        .updateTable('users')
        .set({ display_name: fields.name })
        .where('id', '=', Number(org.wallet_user_id))
        .execute();
    if (fields.markup_bp !== undefined) await this.walletChanged(org);
    return this.view({ ...access, org: { ...org, ...fields } });
  }

  /** The relay reloads what it holds of the organization's tokens (prices, status) on every node. */
  private async walletChanged(org: OrgRow): Promise<void> {
    await this.deps.users.notifyChanged(Number(org.wallet_user_id));
  }

  /** Root lets the organization set its own prices, or takes that back (its markup goes to 0). */
  async setReseller(access: OrgAccess, reseller: boolean): Promise<Organization> {
    const fields = { reseller: reseller ? 1 : 0, ...(reseller ? {} : { markup_bp: 0 }) };
    await this.store.update(access.org.id, fields);
    await this.walletChanged(access.org);
    return this.view({ ...access, org: { ...access.org, ...fields } });
  }

  /** Disables or enables the organization: its wallet account with it, so the relay refuses or serves its tokens. */
  async setStatus(access: OrgAccess, status: 1 | 2): Promise<Organization> {
    await this.store.update(access.org.id, { status });
    await this.deps.users.store.update(Number(access.org.wallet_user_id), {
      status: status === OrgStatus.Enabled ? UserStatus.Enabled : UserStatus.Disabled,
    });
    await this.walletChanged(access.org);
    return this.view({ ...access, org: { ...access.org, status } });
  }

  /** Deletes the organization: it disappears for its members, its wallet account is disabled (its tokens stop). */
  async remove(access: OrgAccess): Promise<void> {
    await this.store.update(access.org.id, { deleted_at: nowSeconds() });
    await this.deps.users.store.update(Number(access.org.wallet_user_id), { status: UserStatus.Disabled });
    await this.walletChanged(access.org);
  }
}

export const organizationsOf = perContext((ctx) => new OrganizationsService(ctx));

import crypto from 'node:crypto';
import {
  ErrorCode,
  InvitationStatus,
  ORG_INVITE_PATH,
  ORG_MEMBERS_MAX,
  ORG_PENDING_INVITATIONS_MAX,
  orgCan,
  type Organization,
  type OrgInvitation,
  type OrgRole,
} from '@tollway/shared';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import type { OrgInvitationsTable } from '../../db/schema-organizations.js';
import { isUniqueViolation } from '../../db/unique.js';
import { coded, refused } from '../../lib/errors.js';
import { Mailer } from '../../lib/mailer.js';
import { randomString } from '../../lib/secrets.js';
import { configuredServerAddress, mailLinkOrigin } from '../../lib/server-address.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { findOrg, requireOrg, type OrgAccess } from './access.js';
import { MEMBER_MSG } from './members.js';
import { organizationsOf } from './service.js';
import { insertId, OrganizationsStore } from './store.js';

type InvitationRow = Selectable<OrgInvitationsTable>;

export const INVITATION_MSG = {
  invalid: 'this invitation is unknown, expired, revoked or already used',
  emailMismatch: 'this invitation was sent to another e-mail address; accept it with that account',
  exists: 'you are already a member of this organization',
  cap: (max: number) => `the organization has the most pending invitations allowed (${max})`,
  membersCap: (max: number) => `the organization has the most members allowed (${max})`,
} as const;

/** Random characters in a code: its hash is what the table keeps. */
const CODE_LENGTH = 40;
const hashCode = (code: string): string => crypto.createHash('sha256').update(code).digest('hex');

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function toInvitation(r: InvitationRow): OrgInvitation {
  return {
    id: r.id,
    email: r.email,
    role: r.role as OrgRole,
    status: Number(r.status),
    created_by: Number(r.created_by),
    created_at: Number(r.created_at),
    expires_at: Number(r.expires_at),
    accepted_by: Number(r.accepted_by),
    accepted_at: Number(r.accepted_at),
  };
}

/**
 * Invitations to an organization: by link (the admin copies it) or mailed to an address (only that address's account
 * may accept). A code is shown once; the table keeps its SHA-256. Accepting is one conditional update, so a code is
 * used once however many accept it at the same moment.
 */
export class InvitationsService {
  private readonly store: OrganizationsStore;

  constructor(private readonly deps: AppContext) {
    this.store = new OrganizationsStore(deps.db);
  }

  private get k() {
    return this.deps.db.kysely;
  }

  async list(access: OrgAccess): Promise<OrgInvitation[]> {
    const rows = await this.k
      .selectFrom('org_invitations')
      .selectAll()
      .where('org_id', '=', access.org.id)
      .orderBy('id', 'desc')
      .limit(ORG_PENDING_INVITATIONS_MAX * 2)
      .execute();
    return rows.map(toInvitation);
  }

  /** The link of a code: on ServerAddress when set, else the console's path alone (the console adds its origin). */
  private link(code: string): string {
    const path = `${ORG_INVITE_PATH}?code=${code}`;
    const base = configuredServerAddress(this.deps.options);
    return base ? `${base}${path}` : path;
  }

  async create(
    access: OrgAccess,
    caller: AuthUser,
    body: { email?: string | undefined; role: OrgRole; ttl_seconds: number },
  ): Promise<{ invitation: OrgInvitation; code: string; link: string }> {
    if (body.role === 'owner' && !orgCan(access.role, 'org.own'))
      throw refused(MEMBER_MSG.ownerOnly, ErrorCode.OrgForbidden, { need: 'org.own' });
    const now = nowSeconds();
    const pending = await this.k
      .selectFrom('org_invitations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', access.org.id)
      .where('status', '=', InvitationStatus.Pending)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    if (Number(pending.n) >= ORG_PENDING_INVITATIONS_MAX)
      throw coded(ErrorCode.OrgInvitationsCap, INVITATION_MSG.cap(ORG_PENDING_INVITATIONS_MAX), {
        max: ORG_PENDING_INVITATIONS_MAX,
      });
    const email = (body.email ?? '').toLowerCase();
    const mailer = email ? new Mailer(this.deps.options) : undefined;
    // Refused before anything is stored: no mail server, or no ServerAddress for the link.
    const mailBase = email ? mailLinkOrigin(this.deps.options) : '';
    mailer?.assertConfigured();
    const code = randomString(CODE_LENGTH);
    const id = await insertId(this.deps.db, this.k, 'org_invitations', {
      org_id: access.org.id,
      code_hash: hashCode(code),
      email,
      role: body.role,
      status: InvitationStatus.Pending,
      created_by: caller.id,
      created_at: now,
      expires_at: now + body.ttl_seconds,
    });
    const link = email ? `${mailBase}${ORG_INVITE_PATH}?code=${code}` : this.link(code);
    if (mailer) {
      const name = escapeHtml(access.org.name);
      const system = this.deps.options.get('SystemName');
      await mailer.send({
        to: email,
        subject: `${system}: invitation to ${access.org.name}`,
        html: `<p>You are invited to join the organization <b>${name}</b> on ${escapeHtml(system)} as ${body.role}.</p><p>Sign in with this address's account and open: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>The invitation expires ${new Date((now + body.ttl_seconds) * 1000).toISOString()}.</p>`,
      });
    }
    const row = await this.k.selectFrom('org_invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return { invitation: toInvitation(row), code, link };
  }

  async revoke(access: OrgAccess, invitationId: number): Promise<void> {
    const res = await this.k
      .updateTable('org_invitations')
      .set({ status: InvitationStatus.Revoked })
      .where('id', '=', invitationId)
      .where('org_id', '=', access.org.id)
      .where('status', '=', InvitationStatus.Pending)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw coded(ErrorCode.OrgInvitationInvalid, INVITATION_MSG.invalid);
  }

  /** A usable invitation of `code` (pending, not expired, its organization there), or the one refusal. */
  private async usable(code: string, now: number) {
    const row = await this.k
      .selectFrom('org_invitations')
      .selectAll()
      .where('code_hash', '=', hashCode(code))
      .executeTakeFirst();
    const org = row && (await findOrg(this.deps.db, row.org_id));
    if (!row || !org || Number(row.status) !== InvitationStatus.Pending || Number(row.expires_at) <= now)
      throw coded(ErrorCode.OrgInvitationInvalid, INVITATION_MSG.invalid);
    return { row, org };
  }

  private async checkEmail(row: InvitationRow, user: AuthUser): Promise<void> {
    if (!row.email) return;
    const u = await this.deps.users.get(user.id);
    if (u.email.toLowerCase() !== row.email)
      throw refused(INVITATION_MSG.emailMismatch, ErrorCode.OrgInvitationEmailMismatch);
  }

  async preview(user: AuthUser, code: string) {
    const { row, org } = await this.usable(code, nowSeconds());
    await this.checkEmail(row, user);
    return {
      org_id: org.id,
      org_name: org.name,
      role: row.role as OrgRole,
      email: row.email,
      expires_at: Number(row.expires_at),
    };
  }

  async accept(user: AuthUser, code: string): Promise<Organization> {
    const now = nowSeconds();
    const { row, org } = await this.usable(code, now);
    await this.checkEmail(row, user);
    if (await this.store.member(org.id, user.id)) throw coded(ErrorCode.OrgMemberExists, INVITATION_MSG.exists);
    if ((await this.store.countMembers(org.id)) >= ORG_MEMBERS_MAX)
      throw coded(ErrorCode.OrgMembersCap, INVITATION_MSG.membersCap(ORG_MEMBERS_MAX), { max: ORG_MEMBERS_MAX });
    await this.k
      .transaction()
      .execute(async (trx) => {
        const res = await trx
          .updateTable('org_invitations')
          .set({ status: InvitationStatus.Accepted, accepted_by: user.id, accepted_at: now })
          .where('id', '=', row.id)
          .where('status', '=', InvitationStatus.Pending)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) throw coded(ErrorCode.OrgInvitationInvalid, INVITATION_MSG.invalid);
        await trx
          .insertInto('org_members')
          .values({ org_id: org.id, user_id: user.id, role: row.role, created_at: now })
          .execute();
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw coded(ErrorCode.OrgMemberExists, INVITATION_MSG.exists);
        throw err;
      });
    return organizationsOf(this.deps).view(await requireOrg(this.deps.db, user, org.id, 'org.read'));
  }
}

export const invitationsOf = perContext((ctx) => new InvitationsService(ctx));

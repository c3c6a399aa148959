import { ErrorCode, orgCan, TokenStatus, type OrgRole, type OrgToken } from '@tollway/shared';
import type { z } from 'zod';
import type { orgTokenBody } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { coded, notFound, refused } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { KEY_LENGTH } from '../tokens/service.js';
import { TokensStore, type TokenChanges, type TokenRow } from '../tokens/store.js';
import { displayStatus, maskTokenKey } from '../tokens/view.js';
import { ORG_ACCESS_MSG, type OrgAccess } from './access.js';
import { MEMBER_MSG } from './members.js';
import { OrganizationsStore } from './store.js';
import { teamsOf } from './teams.js';

type OrgTokenBody = z.infer<typeof orgTokenBody>;

export const ORG_TOKEN_MSG = {
  notFound: 'token not found',
  teamInvalid: "the token's member is not in this team",
} as const;

/** Tokens an organization holds at most (as token_setting.max_user_tokens caps a person's). */
export const ORG_TOKENS_MAX = 5000;

/**
 * An organization's tokens: keys of its wallet account (tokens.user_id), each held by a member (member_id) and
 * attributed to one of their teams (team_id). A member with tokens.own sees and changes their own; tokens.all
 * covers every token and issuing one to another member.
 */
export class OrgTokensService {
  private readonly tokens: TokensStore;
  private readonly orgs: OrganizationsStore;

  constructor(private readonly ctx: AppContext) {
    this.tokens = new TokensStore(ctx.db, ctx.secretBox);
    this.orgs = new OrganizationsStore(ctx.db);
  }

  private view(t: TokenRow, names: Map<number, string>, fullKey = false): OrgToken {
    return {
      id: t.id,
      name: t.name,
      key: fullKey ? t.key : maskTokenKey(t.key),
      status: displayStatus(t),
      member_id: Number(t.member_id),
      member_name: names.get(Number(t.member_id)) ?? '',
      team_id: Number(t.team_id),
      used_quota: Number(t.used_quota),
      remain_quota: Number(t.remain_quota),
      unlimited_quota: t.unlimited_quota === 1,
      expired_time: Number(t.expired_time),
      created_time: Number(t.created_time),
      accessed_time: Number(t.accessed_time),
    };
  }

  private async names(access: OrgAccess): Promise<Map<number, string>> {
    return new Map((await this.orgs.members(access.org.id)).map((m) => [m.user_id, m.username]));
  }

  private wallet = (access: OrgAccess): number => Number(access.org.wallet_user_id);

  async list(access: OrgAccess, caller: AuthUser): Promise<OrgToken[]> {
    let q = this.ctx.db.kysely
      .selectFrom('tokens')
      .select('id')
      .where('user_id', '=', this.wallet(access))
      .where('deleted_at', 'is', null);
    if (!orgCan(access.role, 'tokens.all')) q = q.where('member_id', '=', caller.id);
    const ids = (await q.orderBy('id', 'desc').limit(ORG_TOKENS_MAX).execute()).map((r) => r.id);
    const rows = await this.tokens.findOwnMany(this.wallet(access), ids);
    const names = await this.names(access);
    return rows.sort((a, b) => b.id - a.id).map((t) => this.view(t, names));
  }

  /** A token of the organization the caller may change: theirs, or any with tokens.all. */
  private async own(access: OrgAccess, caller: AuthUser, tokenId: number): Promise<TokenRow> {
    const t = await this.tokens.findOwn(this.wallet(access), tokenId);
    if (!t || (!orgCan(access.role, 'tokens.all') && Number(t.member_id) !== caller.id))
      throw notFound(ORG_TOKEN_MSG.notFound, ErrorCode.OrgTokenNotFound);
    return t;
  }

  /** Who the token is for (the caller, or — with tokens.all — a member) and that they are in the team. */
  private async holder(access: OrgAccess, caller: AuthUser, body: OrgTokenBody): Promise<number> {
    const member = body.member_id ?? caller.id;
    if (member !== caller.id && !orgCan(access.role, 'tokens.all'))
      throw refused(ORG_ACCESS_MSG.forbidden, ErrorCode.OrgForbidden, { need: 'tokens.all' });
    const holder = await this.orgs.member(access.org.id, member);
    if (!holder) throw coded(ErrorCode.OrgMemberNotFound, MEMBER_MSG.notFound);
    // A viewer holds no tokens, whoever issues them.
    if (!orgCan(holder.role as OrgRole, 'tokens.own'))
      throw refused(ORG_ACCESS_MSG.forbidden, ErrorCode.OrgForbidden, { need: 'tokens.own' });
    if (body.team_id > 0) {
      const teams = teamsOf(this.ctx);
      await teams.find(access, body.team_id);
      if (!(await teams.isIn(access, body.team_id, member)))
        throw coded(ErrorCode.OrgTokenTeamInvalid, ORG_TOKEN_MSG.teamInvalid);
    }
    return member;
  }

  async create(access: OrgAccess, caller: AuthUser, body: OrgTokenBody): Promise<OrgToken> {
    const member = await this.holder(access, caller, body);
    if ((await this.tokens.countOwn(this.wallet(access))) >= ORG_TOKENS_MAX)
      throw coded(ErrorCode.TokenLimitReached, `an organization can have at most ${ORG_TOKENS_MAX} tokens`, {
        max: ORG_TOKENS_MAX,
        have: ORG_TOKENS_MAX,
      });
    const now = nowSeconds();
    const [t] = await this.tokens.insertMany([
      {
        user_id: this.wallet(access),
        key: randomString(KEY_LENGTH),
        status: body.status ?? TokenStatus.Enabled,
        name: body.name,
        created_time: now,
        accessed_time: now,
        expired_time: body.expired_time,
        remain_quota: body.remain_quota,
        unlimited_quota: body.unlimited_quota ? 1 : 0,
        used_quota: 0,
        model_limits_enabled: 0,
        model_limits: '',
        allow_ips: '',
        group: '',
        rate_limit_enabled: 0,
        rate_limit_period: 0,
        rate_limit_count: 0,
        rate_limit_success: 0,
        member_id: member,
        team_id: body.team_id,
        deleted_at: null,
      },
    ]);
    this.ctx.tokenChanges.emit(t!.key, t!.id);
    return this.view(t!, await this.names(access), true);
  }

  async update(access: OrgAccess, caller: AuthUser, tokenId: number, body: OrgTokenBody): Promise<OrgToken> {
    const current = await this.own(access, caller, tokenId);
    const member = await this.holder(access, caller, {
      ...body,
      member_id: body.member_id ?? Number(current.member_id),
    });
    const changes: TokenChanges = {
      name: body.name,
      member_id: member,
      team_id: body.team_id,
      unlimited_quota: body.unlimited_quota ? 1 : 0,
      remain_quota: body.remain_quota,
      expired_time: body.expired_time,
    };
    if (body.status !== undefined) changes.status = body.status;
    await this.tokens.update(this.wallet(access), tokenId, changes);
    this.ctx.tokenChanges.emit(current.key, current.id);
    const t = await this.tokens.findOwn(this.wallet(access), tokenId);
    return this.view(t!, await this.names(access));
  }

  async remove(access: OrgAccess, caller: AuthUser, tokenId: number): Promise<void> {
    const t = await this.own(access, caller, tokenId);
    await this.tokens.softDelete(this.wallet(access), tokenId, new Date().toISOString());
    this.ctx.tokenChanges.emit(t.key, t.id);
  }
}

export const orgTokensOf = perContext((ctx) => new OrgTokensService(ctx));

import { ErrorCode, ORG_TEAMS_MAX, type OrgTeam } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import { coded, notFound } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import type { OrgAccess } from './access.js';
import { MEMBER_MSG } from './members.js';
import { insertId, OrganizationsStore } from './store.js';

export const TEAM_MSG = {
  notFound: 'team not found',
  nameTaken: 'the organization already has a team of this name',
  cap: (max: number) => `the organization has the most teams allowed (${max})`,
} as const;

type Deps = Pick<AppContext, 'db' | 'users'>;

/**
 * Teams inside an organization: a name, members (who must be the organization's) and the tokens issued to them. A
 * token's team is where its calls are attributed and which team budgets count them.
 */
export class TeamsService {
  private readonly store: OrganizationsStore;

  constructor(private readonly deps: Deps) {
    this.store = new OrganizationsStore(deps.db);
  }

  private get k() {
    return this.deps.db.kysely;
  }

  async list(access: OrgAccess): Promise<OrgTeam[]> {
    const orgId = access.org.id;
    const [teams, members, tokens] = await Promise.all([
      this.k.selectFrom('org_teams').selectAll().where('org_id', '=', orgId).orderBy('id').execute(),
      this.k.selectFrom('org_team_members').select(['team_id', 'user_id']).where('org_id', '=', orgId).execute(),
      this.k
        .selectFrom('tokens')
        .select(['team_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('user_id', '=', Number(access.org.wallet_user_id))
        .where('deleted_at', 'is', null)
        .groupBy('team_id')
        .execute(),
    ]);
    const count = new Map(tokens.map((t) => [Number(t.team_id), Number(t.n)]));
    return teams.map((t) => ({
      id: t.id,
      name: t.name,
      member_ids: members.filter((m) => m.team_id === t.id).map((m) => m.user_id),
      token_count: count.get(t.id) ?? 0,
      created_at: Number(t.created_at),
    }));
  }

  /** The team `teamId` of the organization, or not found (another organization's team is not found either). */
  async find(access: OrgAccess, teamId: number) {
    const t = await this.k
      .selectFrom('org_teams')
      .selectAll()
      .where('id', '=', teamId)
      .where('org_id', '=', access.org.id)
      .executeTakeFirst();
    if (!t) throw notFound(TEAM_MSG.notFound, ErrorCode.OrgTeamNotFound);
    return t;
  }

  private nameTaken = (err: unknown): never => {
    if (isUniqueViolation(err)) throw coded(ErrorCode.OrgTeamNameTaken, TEAM_MSG.nameTaken);
    throw err;
  };

  async create(access: OrgAccess, name: string): Promise<OrgTeam> {
    const have = await this.k
      .selectFrom('org_teams')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', access.org.id)
      .executeTakeFirstOrThrow();
    if (Number(have.n) >= ORG_TEAMS_MAX)
      throw coded(ErrorCode.OrgTeamsCap, TEAM_MSG.cap(ORG_TEAMS_MAX), { max: ORG_TEAMS_MAX });
    const now = nowSeconds();
    const id = await insertId(this.deps.db, this.k, 'org_teams', {
      org_id: access.org.id,
      name,
      created_at: now,
    }).catch(this.nameTaken);
    return { id, name, member_ids: [], token_count: 0, created_at: now };
  }

  async rename(access: OrgAccess, teamId: number, name: string): Promise<void> {
    await this.find(access, teamId);
    await this.k.updateTable('org_teams').set({ name }).where('id', '=', teamId).execute().catch(this.nameTaken);
  }

  /** Deletes a team: its places and budgets go, its tokens stay with their members (no team). */
  async remove(access: OrgAccess, teamId: number): Promise<void> {
    await this.find(access, teamId);
    const orgId = access.org.id;
    await this.k.transaction().execute(async (trx) => {
      await trx.deleteFrom('org_team_members').where('team_id', '=', teamId).execute();
      await trx
        .deleteFrom('budgets')
        .where('org_id', '=', orgId)
        .where('level', '=', 'team')
        .where('target_id', '=', teamId)
        .execute();
      await trx
        .updateTable('tokens')
        .set({ team_id: 0 })
        .where('user_id', '=', Number(access.org.wallet_user_id))
        .where('team_id', '=', teamId)
        .execute();
      await trx.deleteFrom('org_teams').where('id', '=', teamId).execute();
    });
    await this.deps.users.notifyChanged(Number(access.org.wallet_user_id));
  }

  async addMember(access: OrgAccess, teamId: number, userId: number): Promise<void> {
    await this.find(access, teamId);
    if (!(await this.store.member(access.org.id, userId)))
      throw coded(ErrorCode.OrgMemberNotFound, MEMBER_MSG.notFound);
    await this.k
      .insertInto('org_team_members')
      .values({ org_id: access.org.id, team_id: teamId, user_id: userId })
      .execute()
      .catch((err: unknown) => {
        if (!isUniqueViolation(err)) throw err;
      });
  }

  /** Takes a member out of a team; their tokens of that team stay theirs, attributed to no team. */
  async removeMember(access: OrgAccess, teamId: number, userId: number): Promise<void> {
    await this.find(access, teamId);
    const res = await this.k
      .deleteFrom('org_team_members')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw notFound(MEMBER_MSG.notFound, ErrorCode.OrgMemberNotFound);
    await this.k
      .updateTable('tokens')
      .set({ team_id: 0 })
      .where('user_id', '=', Number(access.org.wallet_user_id))
      .where('member_id', '=', userId)
      .where('team_id', '=', teamId)
      .execute();
    await this.deps.users.notifyChanged(Number(access.org.wallet_user_id));
  }

  /** Whether `userId` is in team `teamId` of the organization. */
  async isIn(access: OrgAccess, teamId: number, userId: number): Promise<boolean> {
    const row = await this.k
      .selectFrom('org_team_members')
      .select('id')
      .where('org_id', '=', access.org.id)
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }
}

export const teamsOf = perContext((ctx) => new TeamsService(ctx));

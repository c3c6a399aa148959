import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { fitsUnderQuotaMax } from '../../db/quota-cap.js';
import { selectPage, type Slice } from '../../db/paged-select.js';
import type { Database, UsersTable } from '../../db/schema.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { Role, UserStatus, type PeriodLimitKey, type QuotaChangeMode } from '@tollway/shared';

export type UserRow = Selectable<UsersTable>;
/** quota_warned_at is left to its default (0) and kept by modules/notifications; limits default to none. */
type DefaultedLimits = 'rpm_limit' | 'tpm_limit' | 'org_id' | PeriodLimitKey;
export type NewUser = Omit<UserRow, 'id' | 'quota_warned_at' | DefaultedLimits> &
  Partial<Pick<UserRow, DefaultedLimits>>;
/** Work done in the inserting transaction once the new user's id is known (e.g. invite rewards). */
/** A new account's row: no identities, no quota, no invite history; `fields` say what this one has. */
export function newUserRow(
  fields: Pick<NewUser, 'username' | 'password' | 'display_name' | 'created_at'> & Partial<NewUser>,
): NewUser {
  return {
    role: Role.Common,
    status: UserStatus.Enabled,
    email: '',
    github_id: '',
    oidc_id: '',
    wechat_id: '',
    telegram_id: '',
    linux_do_id: '',
    access_token: null,
    quota: 0,
    used_quota: 0,
    request_count: 0,
    group: 'default',
    aff_code: '',
    aff_count: 0,
    aff_quota: 0,
    aff_history: 0,
    inviter_id: 0,
    setting: '',
    remark: '',
    deleted_at: null,
    ...fields,
  };
}

export type AfterInsert = (trx: Transaction<Database>, id: number) => Promise<void>;

/** SQL for the users table. Every balance change is one conditional statement. */
export class UsersStore {
  /** Access tokens are stored in `secretBox`'s lookup form (a keyed digest when CRYPTO_SECRET is set). */
  constructor(
    readonly db: Db,
    private readonly secretBox: SecretBox,
  ) {}

  private get k() {
    return this.db.kysely;
  }

  findById(id: number, includeDeleted = false): Promise<UserRow | undefined> {
    let q = this.k.selectFrom('users').selectAll().where('id', '=', id);
    if (!includeDeleted) q = q.where('deleted_at', 'is', null);
    return q.executeTakeFirst();
  }

  /**
   * The live users a login name may mean: a name with '@' is an email (every live user holding it), else a
   * username (unique). Deleted users are never found. At most two rows: more than one is ambiguous anyway.
   */
  findByLogin(login: string): Promise<UserRow[]> {
    const q = this.k.selectFrom('users').selectAll().where('deleted_at', 'is', null);
    const matched = login.includes('@')
      ? q.where('email', '=', login).where('email', '!=', '')
      : q.where('username', '=', login);
    return matched.orderBy('id').limit(2).execute();
  }

  /** The most recently deleted account a login name (username, or email with '@') meant: login tells it apart. */
  findDeletedByLogin(login: string): Promise<UserRow | undefined> {
    return this.k
      .selectFrom('users')
      .selectAll()
      .where('deleted_at', 'is not', null)
      .where((eb) => eb.or([eb('username', '=', login), ...(login.includes('@') ? [eb('email', '=', login)] : [])]))
      .orderBy('deleted_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** A live user whose username is `username` (accounts named before usernames could not hold '@'). */
  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.k
      .selectFrom('users')
      .selectAll()
      .where('username', '=', username)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  findByAccessToken(token: string): Promise<UserRow | undefined> {
    const stored = this.secretBox.lookupForm(token);
    return this.k
      .selectFrom('users')
      .selectAll()
      .where('access_token', '=', stored)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** The live user holding `email` (never matches the empty email). */
  findByEmail(email: string): Promise<UserRow | undefined> {
    if (!email) return Promise.resolve(undefined);
    return this.k
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
  }

  findByAffCode(code: string): Promise<UserRow | undefined> {
    return this.k
      .selectFrom('users')
      .selectAll()
      .where('aff_code', '=', code)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Username taken by any user, deleted ones included (their history keeps the name). */
  async usernameTaken(username: string, exceptId = 0): Promise<boolean> {
    const row = await this.k
      .selectFrom('users')
      .select('id')
      .where('username', '=', username)
      .where('id', '!=', exceptId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async emailTaken(email: string, exceptId = 0): Promise<boolean> {
    const row = await this.k
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .where('id', '!=', exceptId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async countRoots(): Promise<number> {
    const row = await this.k
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '>=', 100)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Inserts a user; `after` runs in the same transaction, so the user exists only if it succeeds too. */
  async insert(user: NewUser, after?: AfterInsert): Promise<number> {
    const insertRow = async (k: Kysely<Database>): Promise<number> => {
      if (this.db.dialect === 'mysql')
        return Number((await k.insertInto('users').values(user).executeTakeFirstOrThrow()).insertId);
      return (await k.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow()).id;
    };
    if (!after) return insertRow(this.k);
    return this.k.transaction().execute(async (trx) => {
      const id = await insertRow(trx);
      await after(trx, id);
      return id;
    });
  }

  async update(id: number, fields: Partial<NewUser>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    const row = fields.access_token
      ? { ...fields, access_token: this.secretBox.lookupForm(fields.access_token) }
      : fields;
    await this.k.updateTable('users').set(row).where('id', '=', id).execute();
  }

  async softDelete(id: number, at: string): Promise<void> {
    await this.k.updateTable('users').set({ deleted_at: at, access_token: null }).where('id', '=', id).execute();
  }

  /**
   * Adds `delta` (may be negative) to quota in one statement; a negative delta never takes quota below 0, a
   * positive one never above QUOTA_MAX.
   */
  async addQuota(id: number, delta: number): Promise<boolean> {
    let q = this.k
      .updateTable('users')
      .set({ quota: sql`quota + ${delta}` })
      .where('id', '=', id);
    q = delta < 0 ? q.where('quota', '>=', -delta) : q.where(fitsUnderQuotaMax('quota', delta));
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * An administrator's balance change in one statement: add (never above QUOTA_MAX), subtract (never below 0) or
   * set (the value is checked by the body's schema). False when the user is gone or the bound would be crossed.
   */
  async adjustQuota(k: Kysely<Database>, id: number, mode: QuotaChangeMode, value: number): Promise<boolean> {
    const quota =
      mode === 'override'
        ? sql<number>`${value}`
        : mode === 'add'
          ? sql<number>`quota + ${value}`
          : sql<number>`quota - ${value}`;
    let q = k.updateTable('users').set({ quota }).where('id', '=', id).where('deleted_at', 'is', null);
    if (mode === 'subtract') q = q.where('quota', '>=', value);
    if (mode === 'add') q = q.where(fitsUnderQuotaMax('quota', value));
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Moves `amount` from aff_quota to quota atomically; false when aff_quota is short. */
  async transferAffQuota(id: number, amount: number): Promise<boolean> {
    const res = await this.k
      .updateTable('users')
      .set({ aff_quota: sql`aff_quota - ${amount}`, quota: sql`quota + ${amount}` })
      .where('id', '=', id)
      .where('aff_quota', '>=', amount)
      .where(fitsUnderQuotaMax('quota', amount))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Credits an inviter: one more invitee and `reward` of aff quota (also counted in history). */
  async creditInviter(id: number, reward: number, k: Kysely<Database> = this.k): Promise<void> {
    await k
      .updateTable('users')
      .set({
        aff_count: sql`aff_count + 1`,
        aff_quota: sql`aff_quota + ${reward}`,
        aff_history: sql`aff_history + ${reward}`,
      })
      .where('id', '=', id)
      .execute();
  }

  page(opts: { offset: number; limit: number; keyword?: string; group?: string }): Promise<Slice<UserRow>> {
    let base = this.k.selectFrom('users');
    if (opts.group) base = base.where('group', '=', opts.group);
    if (opts.keyword) {
      const kw = opts.keyword;
      // The keyword is literal (db/like.ts).
      const asId = /^\d+$/.test(kw) ? Number(kw) : -1;
      base = base.where((eb) =>
        eb.or([eb('id', '=', asId), likeText('username', kw), likeText('email', kw), likeText('display_name', kw)]),
      );
    }
    return selectPage(base, (q) => q.selectAll().orderBy('id', 'desc'), opts);
  }

  async groups(): Promise<string[]> {
    const rows = await this.k.selectFrom('users').select('group').distinct().execute();
    return rows.map((r) => r.group);
  }
}

import {
  Role,
  UserStatus,
  PERIOD_LIMIT_KEYS,
  type PeriodLimitValues,
  type QuotaChangeMode,
  type UserManageAction,
  type UserPublic,
  ErrorCode,
} from '@tollway/shared';
import { refused, coded } from '../../lib/errors.js';
import { balanceCapMessage, balanceCapParams } from '../../db/quota-cap.js';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import type { AuthUser } from '../../core/auth-user.js';
import { hashPassword } from './password.js';
import { toPublicUser } from './public.js';
import type { UsersService } from './service.js';
import type { NewUser, UserRow } from './store.js';

/**
 * Administrator actions on other users with the tier rules, enforced here for every caller:
 * nobody acts on a user at the same or a higher level, nobody creates a user of equal or higher role,
 * only the super administrator promotes, and the super administrator is never disabled, deleted or demoted.
 */
export class UserAdminService {
  constructor(private readonly users: UsersService) {}

  /** The user list, newest first; keyword matches the id, or part of the username, email or display name. */
  page(q: PageQuery & { keyword?: string; group?: string }): Promise<Page<UserPublic>> {
    return readPage(q, (w) => this.users.store.page({ ...w, keyword: q.keyword, group: q.group }), toPublicUser);
  }

  private assertOutranks(actor: AuthUser, target: UserRow, what: string): void {
    if (target.role >= actor.role && !(actor.id === target.id && actor.role >= Role.Root)) {
      throw refused(`cannot ${what} a user at the same or a higher permission level`, ErrorCode.UserLevelRefused);
    }
  }

  async create(
    actor: AuthUser,
    input: { username: string; password: string; display_name: string; role?: number; remark?: string },
  ): Promise<number> {
    const role = input.role ?? Role.Common;
    if (role >= actor.role)
      throw refused('cannot create users of equal or higher permission', ErrorCode.UserLevelRefused);
    if (![Role.Common, Role.Admin].includes(role as 1 | 10)) throw coded(ErrorCode.RoleInvalid, 'role must be 1 or 10');
    return this.users.create({ ...input, role });
  }

  async view(actor: AuthUser, id: number): Promise<UserRow> {
    const target = await this.users.get(id);
    if (target.id !== actor.id && target.role >= actor.role)
      throw refused('cannot view a user at the same or a higher permission level', ErrorCode.UserLevelRefused);
    return target;
  }

  async update(
    actor: AuthUser,
    input: {
      id: number;
      username?: string;
      display_name?: string;
      password?: string;
      group?: string;
      quota?: number;
      email?: string;
      remark?: string;
      rpm_limit?: number;
      tpm_limit?: number;
    } & Partial<PeriodLimitValues>,
  ): Promise<void> {
    const target = await this.users.get(input.id);
    if (target.deleted_at) throw coded(ErrorCode.UserDeleted, 'user has been deleted');
    this.assertOutranks(actor, target, 'modify');
    const fields: Partial<NewUser> = {};
    if (input.username !== undefined && input.username !== target.username) {
      // A login name with '@' means an email: a rename may not make a username look like one.
      if (input.username.includes('@')) throw coded(ErrorCode.UsernameHasAt, 'username must not contain @');
      if (await this.users.store.usernameTaken(input.username, target.id))
        throw coded(ErrorCode.UsernameTaken, 'username already exists', undefined, 409);
      fields.username = input.username;
    }
    if (input.display_name !== undefined) fields.display_name = input.display_name || target.username;
    if (input.password) fields.password = await hashPassword(input.password);
    if (input.email !== undefined && input.email !== target.email) {
      if (input.email && (await this.users.store.emailTaken(input.email, target.id)))
        throw coded(ErrorCode.EmailTaken, 'email already in use', undefined, 409);
      fields.email = input.email;
    }
    if (input.remark !== undefined) fields.remark = input.remark;
    if (input.group !== undefined) fields.group = input.group;
    if (input.rpm_limit !== undefined) fields.rpm_limit = input.rpm_limit;
    if (input.tpm_limit !== undefined) fields.tpm_limit = input.tpm_limit;
    for (const k of PERIOD_LIMIT_KEYS) if (input[k] !== undefined) fields[k] = input[k];
    let delta = 0;
    if (input.quota !== undefined) {
      if (input.quota < 0) throw coded(ErrorCode.QuotaNegative, 'quota must not be negative');
      // Applied as a change from the value the administrator saw (old + delta = new), in one statement, so a
      // concurrent relay settlement written in the same instant is not overwritten.
      delta = input.quota - Number(target.quota);
    }
    if (delta !== 0 && !(await this.users.store.addQuota(target.id, delta)))
      throw delta > 0
        ? coded(ErrorCode.InputTooLarge, balanceCapMessage, balanceCapParams)
        : coded(ErrorCode.QuotaNegative, 'quota must not be negative');
    await this.users.store.update(target.id, fields);
    if (fields.password) await this.users.credentials.apply('password_reset', target.id);
    await this.users.notifyChanged(target.id);
  }

  async manage(actor: AuthUser, id: number, action: UserManageAction): Promise<{ status: number; role: number }> {
    const target = await this.users.get(id);
    if (target.deleted_at) throw coded(ErrorCode.UserNotFound, 'user does not exist');
    if (target.role >= Role.Root && action !== 'enable' && action !== 'promote') {
      throw refused(
        `the super administrator cannot be ${action === 'delete' ? 'deleted' : action === 'demote' ? 'demoted' : 'disabled'}`,
        ErrorCode.RootProtected,
      );
    }
    if (target.id === actor.id) throw refused('you cannot manage your own account here', ErrorCode.SelfManageRefused);
    this.assertOutranks(actor, target, action);
    let { status, role } = target;
    switch (action) {
      case 'promote':
        if (actor.role < Role.Root)
          throw refused('regular administrators cannot promote others to administrator', ErrorCode.UserLevelRefused);
        if (role >= Role.Admin) throw coded(ErrorCode.AlreadyAdmin, 'the user is already an administrator');
        role = Role.Admin;
        break;
      case 'demote':
        if (role < Role.Admin) throw coded(ErrorCode.AlreadyCommon, 'the user is already an ordinary user');
        role = Role.Common;
        break;
      case 'disable':
        status = UserStatus.Disabled;
        break;
      case 'enable':
        status = UserStatus.Enabled;
        break;
      case 'delete':
        await this.users.store.softDelete(target.id, new Date().toISOString());
        await this.users.credentials.apply('user_deleted', target.id);
        return { status, role };
    }
    await this.users.store.update(target.id, { status, role });
    // The event's credential effects (and the caches' refresh) follow the stored change.
    if (action === 'disable') await this.users.credentials.apply('user_disabled', target.id);
    else if (action === 'demote') await this.users.credentials.apply('role_lowered', target.id);
    else await this.users.notifyChanged(target.id);
    return { status, role };
  }

  /**
   * add_quota: add or subtract a positive value, or set the balance, of a user below the actor's level; one
   * statement, logged as a manage entry. Returns the user's status and role, as the other actions do.
   */
  async changeQuota(
    actor: AuthUser,
    id: number,
    mode: QuotaChangeMode,
    value: number,
  ): Promise<{ status: number; role: number }> {
    const target = await this.users.get(id);
    if (target.deleted_at) throw coded(ErrorCode.UserNotFound, 'user does not exist');
    this.assertOutranks(actor, target, 'change the balance of');
    if (mode !== 'override' && value <= 0)
      throw coded(ErrorCode.AmountNotPositive, 'the amount must be greater than 0');
    const what =
      mode === 'add'
        ? `added ${value} quota`
        : mode === 'subtract'
          ? `subtracted ${value} quota`
          : `set the balance to ${value} quota`;
    const done = await this.users.adjustQuota(target, mode, value, `administrator ${actor.username} ${what}`, {
      kind: 'admin_quota',
      mode,
      quota: value,
      actor: actor.username,
    });
    if (!done) {
      if (mode === 'subtract') throw coded(ErrorCode.BalanceTooLow, 'the balance is lower than the amount to subtract');
      throw mode === 'add'
        ? coded(ErrorCode.InputTooLarge, balanceCapMessage, balanceCapParams)
        : coded(ErrorCode.UserNotFound, 'user does not exist');
    }
    return { status: target.status, role: target.role };
  }
}

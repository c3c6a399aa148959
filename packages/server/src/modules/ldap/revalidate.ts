import { Role, UserStatus } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { PeriodicJob } from '../../lib/periodic-job.js';
import { perContext } from '../../per-context.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { applyMappedIdentity } from '../identity/mapping.js';
import { DirectoryError, type Directory, type DirectoryEntry } from './directory.js';
import { ldapOf, type LdapService } from './service.js';

/** How often the master node looks for directory accounts due for a check. */
const PASS_INTERVAL_MS = 30_000;
const FIRST_PASS_DELAY_MS = 30_000;

/** What one pass did. */
export interface RevalidationPass {
  checked: number;
  /** Users whose directory sessions ended (gone, disabled or no longer allowed; or LDAP sign-in turned off). */
  ended: number[];
  /** Users disabled here because the directory no longer has them in good standing (LDAPDisableRemovedUsers). */
  disabled: number[];
  /** Users left as they were because the directory could not be asked. */
  unreachable: number;
}

/** A user due for a check: their directory account, and whether they hold directory sessions. */
interface Due {
  userId: number;
  externalId: string;
  hasSessions: boolean;
}

/**
 * Keeps directory accounts honest. A user whose newest directory sign-in (or last check) is older than
 * LDAPRevalidateSeconds is looked up again by the service account; with LDAPDisableRemovedUsers every enabled user
 * bound to a directory account is, sessions or not (their API keys matter too). An entry that is gone, disabled
 * (AD's ACCOUNTDISABLE flag, LDAPDisabledFilter) or, with LDAPGroupRequired, in no mapped group ends the user's
 * directory sessions (credential event identity_revoked) and, with LDAPDisableRemovedUsers, disables the user
 * (user_disabled: every session and the access token end, API keys are refused). A found one has its group and
 * role mapped again. With LDAP sign-in turned off every directory session ends (identity_provider_disabled). An
 * unreachable directory changes nothing (an outage must not sign everyone out); it is logged and asked again on the
 * next pass.
 */
export class LdapRevalidation {
  private readonly job: PeriodicJob<RevalidationPass>;
  /** When each user was last found in good standing (bounded by the users bound to a directory account). */
  private readonly checkedAt = new Map<number, number>();

  constructor(private readonly ctx: AppContext) {
    this.job = new PeriodicJob('LDAP session revalidation', (now) => this.pass(now), ctx.log);
  }

  private get ldap(): LdapService {
    return ldapOf(this.ctx);
  }

  /** One pass as of `now` (epoch seconds). */
  runOnce(now?: number): Promise<RevalidationPass> {
    return this.job.runOnce(now);
  }

  start(): void {
    this.job.start({ firstDelayMs: FIRST_PASS_DELAY_MS, intervalMs: PASS_INTERVAL_MS });
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  private async pass(now: number): Promise<RevalidationPass> {
    const result: RevalidationPass = { checked: 0, ended: [], disabled: [], unreachable: 0 };
    const o = this.ctx.options;
    const holders = await this.ldap.store.sessionHolders(now);
    if (!this.ldap.enabled) {
      this.checkedAt.clear();
      if (holders.length === 0) return result;
      await this.ctx.users.credentials.endIdentity('identity_provider_disabled', SessionOrigins.ldap);
      result.ended = holders.map((h) => h.userId);
      return result;
    }
    const disableRemoved = o.bool('LDAPDisableRemovedUsers');
    const sweep = disableRemoved ? await this.ldap.store.boundUsers() : [];
    const known = new Set([...holders.map((h) => h.userId), ...sweep.map((u) => u.userId)]);
    for (const id of this.checkedAt.keys()) if (!known.has(id)) this.checkedAt.delete(id);

    const every = o.num('LDAPRevalidateSeconds');
    const due = new Map<number, Due>();
    for (const h of holders) {
      const since = Math.max(h.lastSignIn, this.checkedAt.get(h.userId) ?? 0);
      if (now - since >= every) due.set(h.userId, { userId: h.userId, externalId: h.externalId, hasSessions: true });
    }
    const withSessions = new Set(holders.map((h) => h.userId));
    for (const u of sweep) {
      if (withSessions.has(u.userId) || now - (this.checkedAt.get(u.userId) ?? 0) < every) continue;
      due.set(u.userId, { userId: u.userId, externalId: u.externalId, hasSessions: false });
    }
    if (due.size === 0) return result;

    let entries: Map<string, DirectoryEntry | undefined>;
    try {
      entries = await this.lookup([...new Set([...due.values()].map((d) => d.externalId))]);
    } catch (err) {
      if (err instanceof DirectoryError) this.ldap.refusalOf(err);
      else this.ctx.log.warn({ err: (err as Error).message }, 'LDAP revalidation: the directory was not asked');
      result.unreachable = due.size;
      return result;
    }
    for (const d of due.values()) {
      result.checked++;
      const entry = entries.get(d.externalId);
      if (entry && !entry.disabled && (await this.keep(d.userId, entry))) {
        this.checkedAt.set(d.userId, now);
        continue;
      }
      this.checkedAt.delete(d.userId);
      if (d.hasSessions) {
        await this.ctx.users.credentials.endIdentity('identity_revoked', SessionOrigins.ldap, d.userId);
        result.ended.push(d.userId);
      }
      if (disableRemoved && (await this.disable(d.userId))) result.disabled.push(d.userId);
    }
    return result;
  }

  private lookup(names: string[]): Promise<Map<string, DirectoryEntry | undefined>> {
    let directory: Directory;
    try {
      directory = this.ldap.directory();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return directory.lookupAll(names);
  }

  /** Whether a found entry may keep signing in; if so its group and role are mapped again. */
  private async keep(userId: number, entry: DirectoryEntry): Promise<boolean> {
    const mapped = this.ldap.mapped(entry);
    if (!this.ldap.allowed(mapped)) return false;
    const user = await this.ctx.usersStore.findById(userId);
    if (user) await applyMappedIdentity(this.ctx.users, user, mapped, { group: true, role: true });
    return true;
  }

  /** Disables an enabled user below root, as an administrator's "disable" does (user_disabled). */
  private async disable(userId: number): Promise<boolean> {
    const user = await this.ctx.usersStore.findById(userId);
    if (!user || user.status !== UserStatus.Enabled || user.role >= Role.Root) return false;
    await this.ctx.users.store.update(userId, { status: UserStatus.Disabled });
    await this.ctx.users.credentials.apply('user_disabled', userId);
    this.ctx.log.info({ userId }, 'LDAP: user disabled, the directory no longer has them in good standing');
    return true;
  }
}

export const ldapRevalidationOf = perContext((ctx: AppContext) => new LdapRevalidation(ctx));

import type { AppContext } from '../../context.js';
import { PeriodicJob } from '../../lib/periodic-job.js';
import { perContext } from '../../per-context.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { applyMappedIdentity } from '../identity/mapping.js';
import type { Directory } from './directory.js';
import { ldapOf, type LdapService } from './service.js';
import type { DirectorySessionHolder } from './store.js';

/** How often the master node looks for directory sessions due for a check. */
const PASS_INTERVAL_MS = 30_000;
const FIRST_PASS_DELAY_MS = 30_000;

/** What one pass did. */
export interface RevalidationPass {
  checked: number;
  /** Users whose directory sessions ended (gone, disabled or no longer allowed; or LDAP sign-in turned off). */
  ended: number[];
  /** Users left as they were because the directory could not be asked. */
  unreachable: number;
}

/**
 * Keeps directory sessions honest: a user whose newest directory sign-in (or last check) is older than
 * LDAPRevalidateSeconds is looked up again by the service account. An entry that is gone, disabled (AD's
 * ACCOUNTDISABLE flag, LDAPDisabledFilter) or, with LDAPGroupRequired, in no mapped group ends the user's
 * directory sessions (credential event identity_revoked); a found one has its group and role mapped again. With
 * LDAP sign-in turned off every directory session ends (identity_provider_disabled). An unreachable directory
 * ends nothing (an outage must not sign everyone out); it is logged and tried again on the next pass.
 */
export class LdapRevalidation {
  private readonly job: PeriodicJob<RevalidationPass>;
  /** When each user with directory sessions was last found in good standing (bounded by those users). */
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
    const result: RevalidationPass = { checked: 0, ended: [], unreachable: 0 };
    const holders = await this.ldap.store.sessionHolders(now);
    const live = new Set(holders.map((h) => h.userId));
    for (const id of this.checkedAt.keys()) if (!live.has(id)) this.checkedAt.delete(id);
    if (holders.length === 0) return result;
    const credentials = this.ctx.users.credentials;
    if (!this.ldap.enabled) {
      await credentials.endIdentity('identity_provider_disabled', SessionOrigins.ldap);
      result.ended = holders.map((h) => h.userId);
      this.checkedAt.clear();
      return result;
    }
    const every = this.ctx.options.num('LDAPRevalidateSeconds');
    let directory: Directory;
    try {
      directory = this.ldap.directory();
    } catch (err) {
      this.ctx.log.warn({ err: (err as Error).message }, 'LDAP revalidation skipped');
      result.unreachable = holders.length;
      return result;
    }
    for (const h of holders) {
      const since = Math.max(h.lastSignIn, this.checkedAt.get(h.userId) ?? 0);
      if (now - since < every) continue;
      result.checked++;
      const verdict = await this.check(directory, h);
      if (verdict === 'unreachable') {
        result.unreachable++;
        continue;
      }
      if (verdict === 'ended') {
        await credentials.endIdentity('identity_revoked', SessionOrigins.ldap, h.userId);
        this.checkedAt.delete(h.userId);
        result.ended.push(h.userId);
        continue;
      }
      this.checkedAt.set(h.userId, now);
    }
    return result;
  }

  private async check(directory: Directory, h: DirectorySessionHolder): Promise<'kept' | 'ended' | 'unreachable'> {
    let entry;
    try {
      entry = await directory.lookup(h.externalId);
    } catch (err) {
      this.ldap.refusalOf(err);
      return 'unreachable';
    }
    if (!entry || entry.disabled) return 'ended';
    const mapped = this.ldap.mapped(entry);
    if (!this.ldap.allowed(mapped)) return 'ended';
    const user = await this.ctx.usersStore.findById(h.userId);
    if (user) await applyMappedIdentity(this.ctx.users, user, mapped, { group: true, role: true });
    return 'kept';
  }
}

export const ldapRevalidationOf = perContext((ctx: AppContext) => new LdapRevalidation(ctx));

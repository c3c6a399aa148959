import { Role, type TwoFactorSetup, type TwoFactorStatus, ErrorCode } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { refused, coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { nowSeconds } from '../../lib/time.js';
import type { AuthUser } from '../../core/auth-user.js';
import { backupCodeCheck, hashBackupCode, newBackupCodes } from './backup-codes.js';
import { TwoFactorAttempts } from './attempts.js';
import { TwoFactorStore, type TwoFactorRow } from './store.js';
import { matchTotp, newTotpSecret, otpauthUri } from './totp.js';

export const NOT_ENABLED = 'two-factor authentication is not enabled for this user';
const WRONG_CODE = 'the verification code or backup code is wrong, please try again';
const REPLAYED_CODE = 'this verification code has already been used; wait for the next one';

/** Which kinds of code a step accepts. */
type Accept = 'totp' | 'totp-or-backup';

/** What two-factor rules need: the table (secrets sealed by the secret box), the attempt counters, the options, the users. */
export type TwoFactorDeps = Pick<AppContext, 'db' | 'counters' | 'options' | 'secretBox' | 'usersStore'>;

/** Two-factor sign-in of every account: setup, confirmation, codes, backup codes, administrator reset. */
export class TwoFactorService {
  readonly store: TwoFactorStore;
  readonly attempts: TwoFactorAttempts;

  constructor(private readonly deps: TwoFactorDeps) {
    this.store = new TwoFactorStore(deps.db);
    this.attempts = new TwoFactorAttempts(deps.counters);
  }

  /** TwoFactorRequiredForAdmins is on and `user` is an administrator without 2FA. */
  async setupRequired(user: { id: number; role: number }): Promise<boolean> {
    if (user.role < Role.Admin || !this.deps.options.bool('TwoFactorRequiredForAdmins')) return false;
    return !(await this.store.isEnabled(user.id));
  }

  async status(user: AuthUser): Promise<TwoFactorStatus> {
    const row = await this.store.find(user.id);
    const enabled = Number(row?.enabled ?? 0) === 1;
    return {
      enabled,
      locked: await this.attempts.userLocked(user.id),
      backup_codes_remaining: enabled ? await this.store.countUnused(user.id) : 0,
      setup_required: !enabled && user.role >= Role.Admin && this.deps.options.bool('TwoFactorRequiredForAdmins'),
    };
  }

  /** A new secret and backup codes, not in force until enable() gets a valid code; refused while 2FA is on. */
  async setup(user: AuthUser): Promise<TwoFactorSetup> {
    const secret = newTotpSecret();
    const codes = newBackupCodes();
    const hashes = await Promise.all(codes.map(hashBackupCode));
    const started = await this.store.startSetup(user.id, this.deps.secretBox.seal(secret), hashes, nowSeconds());
    if (!started && (await this.store.isEnabled(user.id)))
      throw coded(
        ErrorCode.TwoFactorAlreadyEnabled,
        'two-factor authentication is already enabled; disable it first to set it up again',
      );
    if (!started)
      throw coded(
        ErrorCode.TwoFactorSetupRace,
        'another two-factor setup was started at the same moment; try again',
        undefined,
        409,
      );
    const issuer = this.deps.options.get('SystemName').trim() || 'Tollway';
    return { secret, qr_code_data: otpauthUri(issuer, user.username, secret), backup_codes: codes };
  }

  /** Turns on the pending setup with a code from the authenticator. */
  async enable(userId: number, code: string, ip: string): Promise<void> {
    const row = await this.store.find(userId);
    if (!row) throw coded(ErrorCode.TwoFactorSetupFirst, 'start the two-factor setup first');
    if (Number(row.enabled) === 1)
      throw coded(ErrorCode.TwoFactorAlreadyEnabled, 'two-factor authentication is already enabled');
    await this.check(row, code, 'totp', ip);
    if (!(await this.store.enable(userId, nowSeconds())))
      throw coded(ErrorCode.TwoFactorAlreadyEnabled, 'two-factor authentication is already enabled');
  }

  /** Turns 2FA off with a current code or a backup code. */
  async disable(userId: number, code: string, ip: string): Promise<void> {
    await this.check(await this.enabledRow(userId), code, 'totp-or-backup', ip);
    await this.store.remove(userId);
  }

  /** New backup codes (the old ones stop working) for a current authenticator code. */
  async regenerateBackupCodes(userId: number, code: string, ip: string): Promise<string[]> {
    await this.check(await this.enabledRow(userId), code, 'totp', ip);
    const codes = newBackupCodes();
    await this.store.replaceCodes(userId, await Promise.all(codes.map(hashBackupCode)));
    return codes;
  }

  /** The second step of a sign-in: a current code or a backup code. */
  async verifySignIn(userId: number, code: string, ip: string): Promise<void> {
    await this.check(await this.enabledRow(userId), code, 'totp-or-backup', ip);
  }

  /** An administrator turns off another user's 2FA, with the user-management tier rules. */
  async adminReset(actor: AuthUser, targetId: number): Promise<void> {
    const target = await this.deps.usersStore.findById(targetId);
    if (!target) throw coded(ErrorCode.UserNotFound, 'user does not exist');
    if (target.id === actor.id)
      throw refused(
        'turn off your own two-factor authentication in personal settings',
        ErrorCode.TwoFactorOwnInSettings,
      );
    if (target.role >= actor.role)
      throw refused(
        'cannot reset two-factor authentication of a user at the same or a higher permission level',
        ErrorCode.UserLevelRefused,
      );
    if (!(await this.store.remove(targetId))) throw coded(ErrorCode.TwoFactorNotEnabled, NOT_ENABLED);
  }

  async stats(): Promise<{ total_users: number; enabled_users: number; enabled_rate: string }> {
    const total = await this.store.countUsers();
    const enabled = await this.store.countEnabled();
    return {
      total_users: total,
      enabled_users: enabled,
      enabled_rate: `${total > 0 ? ((enabled / total) * 100).toFixed(1) : '0.0'}%`,
    };
  }

  private async enabledRow(userId: number): Promise<TwoFactorRow> {
    const row = await this.store.find(userId);
    if (!row || Number(row.enabled) !== 1) throw coded(ErrorCode.TwoFactorNotEnabled, NOT_ENABLED);
    return row;
  }

  /** Accepts `code` once (TOTP step or backup code), within the per-user and per-address failure limits. */
  private async check(row: TwoFactorRow, code: string, accept: Accept, ip: string): Promise<void> {
    await this.attempts.assertOpen(row.user_id, ip);
    const result = await this.match(row, code, accept);
    if (result === 'ok') return;
    await this.attempts.fail(row.user_id, ip);
    throw result === 'replayed'
      ? coded(ErrorCode.TwoFactorCodeReplayed, REPLAYED_CODE)
      : coded(ErrorCode.TwoFactorCodeWrong, WRONG_CODE);
  }

  private async match(row: TwoFactorRow, code: string, accept: Accept): Promise<'ok' | 'wrong' | 'replayed'> {
    const digits = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(digits)) {
      const step = matchTotp(this.deps.secretBox.open(row.secret), digits);
      if (step === undefined) return 'wrong';
      return (await this.store.claimStep(row.user_id, step)) ? 'ok' : 'replayed';
    }
    // A backup code is Tollway's own or one imported from new-api; each stored hash says which.
    const matches = accept === 'totp-or-backup' ? backupCodeCheck(code) : undefined;
    if (!matches) return 'wrong';
    for (const stored of await this.store.unusedCodes(row.user_id)) {
      if (await matches(stored.code_hash))
        return (await this.store.spendCode(stored.id, nowSeconds())) ? 'ok' : 'wrong';
    }
    return 'wrong';
  }
}

export const twoFactorOf = perContext((ctx: AppContext) => new TwoFactorService(ctx));

import {
  REDEMPTION_KEY_LENGTH,
  RedemptionStatus,
  renderQuota,
  type CreateRedemptionBody,
  type RedemptionPublic,
  type UpdateRedemptionBody,
  ErrorCode,
  type LogEvent,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import { balanceCapMessage, balanceCapParams } from '../../db/quota-cap.js';
import { conflict, notFound, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { nowSeconds } from '../../lib/time.js';
import type { AuthUser } from '../../core/auth-user.js';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import { RedemptionsStore, type NewRedemption, type RedemptionChanges, type RedemptionRow } from './store.js';
import { perContext } from '../../per-context.js';

export const MSG = {
  notFound: 'redemption code not found',
  invalid: 'invalid redemption code',
  empty: 'please enter a redemption code',
  used: 'redemption code already used',
  disabled: 'this redemption code has been disabled',
  expired: 'this redemption code has expired',
  usedUp: 'this gift code has reached its maximum number of uses',
  usedByYou: 'you have already redeemed this gift code',
  window: 'effective time must be earlier than expiry time',
  keyTaken: 'a redemption code with this key already exists',
  keyOne: 'a custom key can only be given when creating one code (count 1)',
  editUnused: 'only unused redemption codes (status 1) can be edited',
  enableUsed: 'a used redemption code cannot be enabled',
  statusValue: 'status must be 1 (enabled) or 2 (disabled)',
  maxBelowUses: 'max_uses cannot be lower than the number of times the code was already used',
  giftUsed: 'a code that was already used cannot switch between gift and normal',
  userMissing: 'user does not exist',
} as const;

const formatTime = (epoch: number) =>
  new Date(epoch * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

/** The API shape of a stored code. */
export function toRedemptionPublic(r: RedemptionRow): RedemptionPublic {
  return {
    id: r.id,
    user_id: r.user_id,
    key: r.key,
    status: r.status,
    name: r.name,
    quota: Number(r.quota),
    created_time: Number(r.created_time),
    redeemed_time: Number(r.redeemed_time),
    used_user_id: r.used_user_id,
    is_gift: r.is_gift === 1,
    max_uses: r.max_uses,
    used_count: r.used_count,
    valid_from: Number(r.valid_from),
    valid_until: Number(r.valid_until),
    expired_time: Number(r.valid_until),
  };
}

/** max_uses as stored: 1 for a normal code, -1 or a positive count for a gift code. */
const storedMaxUses = (isGift: boolean, maxUses: number) => (isGift ? maxUses : 1);

function checkWindow(validFrom: number, validUntil: number): void {
  if (validFrom > 0 && validUntil > 0 && validFrom >= validUntil)
    throw coded(ErrorCode.RedemptionWindowInvalid, MSG.window);
}

/** What redemption codes need: their table, the account log a redeemed code writes, the options, the users' balances. */
export type RedemptionDeps = Pick<AppContext, 'db' | 'accountLogs' | 'options' | 'users'>;

/**
 * Redemption codes: administrators create and manage them; any user redeems one with POST /api/user/topup.
 * A use is one transaction of single conditional statements (see RedemptionsStore.use), so concurrent
 * redemptions can never credit a code more often than it allows.
 */
export class RedemptionService {
  readonly store: RedemptionsStore;

  constructor(private readonly deps: RedemptionDeps) {
    this.store = new RedemptionsStore(deps.db, deps.accountLogs);
  }

  page(q: PageQuery & { keyword?: string }): Promise<Page<RedemptionPublic>> {
    return readPage(q, (w) => this.store.page({ ...w, keyword: q.keyword }), toRedemptionPublic);
  }

  async get(id: number): Promise<RedemptionPublic> {
    const r = await this.store.findById(id);
    if (!r) throw notFound(MSG.notFound, ErrorCode.RedemptionNotFound);
    return toRedemptionPublic(r);
  }

  /** Creates `count` codes with random 32-character keys (or one with the given key); returns their keys. */
  async create(actor: AuthUser, body: CreateRedemptionBody): Promise<string[]> {
    checkWindow(body.valid_from, body.valid_until);
    if (body.key && body.count !== 1) throw coded(ErrorCode.RedemptionKeyOne, MSG.keyOne);
    const now = nowSeconds();
    const rows: NewRedemption[] = [];
    for (let i = 0; i < body.count; i++) {
      rows.push({
        user_id: actor.id,
        key: body.key || randomString(REDEMPTION_KEY_LENGTH),
        status: RedemptionStatus.Unused,
        name: body.name,
        quota: body.quota,
        created_time: now,
        redeemed_time: 0,
        used_user_id: 0,
        is_gift: body.is_gift ? 1 : 0,
        max_uses: storedMaxUses(body.is_gift, body.max_uses),
        used_count: 0,
        valid_from: body.valid_from,
        valid_until: body.valid_until,
      });
    }
    try {
      await this.store.insertMany(rows);
      return rows.map((r) => r.key);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(MSG.keyTaken, ErrorCode.RedemptionKeyTaken);
      throw err;
    }
  }

  /** Full edit (unused codes only) or, with statusOnly, enable/disable. */
  async update(body: UpdateRedemptionBody, statusOnly: boolean): Promise<RedemptionPublic> {
    const current = await this.store.findById(body.id);
    if (!current) throw notFound(MSG.notFound, ErrorCode.RedemptionNotFound);
    if (statusOnly) {
      if (body.status !== RedemptionStatus.Unused && body.status !== RedemptionStatus.Disabled)
        throw coded(ErrorCode.StatusInvalid, MSG.statusValue);
      if (current.status === RedemptionStatus.Used)
        throw body.status === RedemptionStatus.Unused
          ? coded(ErrorCode.RedemptionEnableUsed, MSG.enableUsed)
          : coded(ErrorCode.RedemptionUsed, MSG.used);
      if (!(await this.store.setStatus(current.id, body.status)))
        throw coded(ErrorCode.RedemptionEnableUsed, MSG.enableUsed);
      return this.get(current.id);
    }
    if (current.status !== RedemptionStatus.Unused) throw coded(ErrorCode.RedemptionEditUnused, MSG.editUnused);
    const isGift = body.is_gift ?? current.is_gift === 1;
    if (isGift !== (current.is_gift === 1) && current.used_count > 0)
      throw coded(ErrorCode.RedemptionGiftUsed, MSG.giftUsed);
    const maxUses = storedMaxUses(isGift, body.max_uses ?? (current.is_gift === 1 ? current.max_uses : -1));
    if (isGift && maxUses > 0 && maxUses < current.used_count)
      throw coded(ErrorCode.RedemptionMaxBelowUses, MSG.maxBelowUses);
    const validFrom = body.valid_from ?? Number(current.valid_from);
    const validUntil = body.valid_until ?? Number(current.valid_until);
    checkWindow(validFrom, validUntil);
    const changes: RedemptionChanges = {
      is_gift: isGift ? 1 : 0,
      max_uses: maxUses,
      valid_from: validFrom,
      valid_until: validUntil,
    };
    if (body.name !== undefined) changes.name = body.name;
    if (body.quota !== undefined) changes.quota = body.quota;
    // Applied only if nobody used or disabled the code since it was read (else the checks above are stale).
    if (!(await this.store.updateUnused(current.id, changes, current.used_count)))
      throw coded(ErrorCode.RedemptionEditUnused, MSG.editUnused);
    return this.get(current.id);
  }

  countByName(name: string): Promise<number> {
    return this.store.countByName(name);
  }

  /** Disables the unused codes among ids; returns how many changed. */
  disableMany(ids: number[]): Promise<number> {
    return this.store.disableMany(ids);
  }

  deleteByName(name: string): Promise<number> {
    return this.store.deleteByName(name);
  }

  deleteDisabled(): Promise<number> {
    return this.store.deleteDisabled();
  }

  deleteInvalid(): Promise<number> {
    return this.store.deleteInvalid(nowSeconds());
  }

  async remove(id: number): Promise<void> {
    if ((await this.store.deleteById(id)) === 0) throw notFound(MSG.notFound, ErrorCode.RedemptionNotFound);
  }

  /**
   * Redeems `key` for `user`: returns the quota credited. The checks before the transaction only choose the
   * message; the conditional statements in the transaction decide.
   */
  async redeem(user: AuthUser, rawKey: string | null | undefined): Promise<{ quota: number; isGift: boolean }> {
    const key = (rawKey ?? '').trim();
    if (!key) throw coded(ErrorCode.RedemptionEmpty, MSG.empty);
    const code = await this.store.findByKey(key);
    if (!code) throw coded(ErrorCode.RedemptionInvalid, MSG.invalid);
    const now = nowSeconds();
    await this.refuseIfUnusable(code, user.id, now);
    const outcome = await this.store
      .use({
        code,
        userId: user.id,
        username: user.username,
        at: now,
        logContent: this.logContent(code),
        logEvent: this.logEvent(code),
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw coded(ErrorCode.RedemptionUsedByYou, MSG.usedByYou);
        throw err;
      });
    if (outcome === 'user-missing') throw coded(ErrorCode.UserNotFound, MSG.userMissing);
    if (outcome === 'over-max') throw coded(ErrorCode.InputTooLarge, balanceCapMessage, balanceCapParams);
    if (outcome === 'unavailable') {
      // Someone else took the last use (or an administrator changed the code) between the read and the update.
      const fresh = await this.store.findByKey(key);
      if (!fresh) throw coded(ErrorCode.RedemptionInvalid, MSG.invalid);
      await this.refuseIfUnusable(fresh, user.id, now);
      throw code.is_gift === 1
        ? coded(ErrorCode.RedemptionUsedUp, MSG.usedUp)
        : coded(ErrorCode.RedemptionUsed, MSG.used);
    }
    // The relay's balance (memory or Redis ledger, every node) learns the new quota before the answer.
    await this.deps.users.notifyChanged(user.id);
    return { quota: Number(code.quota), isGift: code.is_gift === 1 };
  }

  private async refuseIfUnusable(code: RedemptionRow, userId: number, now: number): Promise<void> {
    if (code.status === RedemptionStatus.Used) throw coded(ErrorCode.RedemptionUsed, MSG.used);
    if (code.status !== RedemptionStatus.Unused) throw coded(ErrorCode.RedemptionDisabled, MSG.disabled);
    const from = Number(code.valid_from);
    const until = Number(code.valid_until);
    if (from > 0 && now < from)
      throw coded(
        ErrorCode.RedemptionNotYetValid,
        `this redemption code is not valid yet: it can be used from ${formatTime(from)}`,
        { time: formatTime(from) },
      );
    if (until > 0 && now >= until) throw coded(ErrorCode.RedemptionExpired, MSG.expired);
    if (code.is_gift === 1 && (await this.store.hasUsed(code.id, userId)))
      throw coded(ErrorCode.RedemptionUsedByYou, MSG.usedByYou);
    if (code.max_uses > 0 && code.used_count >= code.max_uses)
      throw code.is_gift === 1
        ? coded(ErrorCode.RedemptionUsedUp, MSG.usedUp)
        : coded(ErrorCode.RedemptionUsed, MSG.used);
  }

  private amount(code: RedemptionRow): string {
    return renderQuota(Number(code.quota), {
      displayInCurrency: true,
      quotaPerUnit: this.deps.options.num('QuotaPerUnit'),
    });
  }

  private logContent(code: RedemptionRow): string {
    return `Top-up with redemption code ${this.amount(code)} (code id ${code.id}${code.is_gift === 1 ? ', gift' : ''})`;
  }

  private logEvent(code: RedemptionRow): LogEvent {
    return {
      kind: 'redemption',
      quota: Number(code.quota),
      amount: this.amount(code),
      code_id: code.id,
      gift: code.is_gift === 1,
    };
  }
}

/** The redemption service of a context (one per running app). */
export const redemptionsOf = perContext((ctx) => new RedemptionService(ctx));

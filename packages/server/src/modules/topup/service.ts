import {
  dec,
  ErrorCode,
  mul,
  PAYMENT_METHODS,
  QUOTA_MAX,
  renderQuota,
  roundToInt,
  type PaymentMethod,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { coded, notFound } from '../../lib/errors.js';
import { balanceCapMessage, balanceCapParams, QuotaMaxExceeded } from '../../db/quota-cap.js';
import { randomString } from '../../lib/secrets.js';
import { configuredServerAddress } from '../../lib/server-address.js';
import { nowSeconds } from '../../lib/time.js';
import type { AuthUser } from '../../core/auth-user.js';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import { EPAY_TRADE_SUCCESS, epayPurchase, epayVerify, sameCents, type EpayMerchant, type EpayParams } from './epay.js';
import { TopUpStore, type TopUpRow } from './store.js';
import { CREEM_METHOD } from './card-methods.js';
import { perContext } from '../../per-context.js';

export const TOPUP_DISABLED = 'the administrator has not enabled online top-up';
export const NO_CALLBACK_ADDRESS = 'the administrator has not set the server address, so online top-up cannot be used';
export const AMOUNT_TOO_LOW = 'the payable amount is too low';
export const ORDER_NOT_PENDING = 'the top-up order is not pending';
export const NOTIFY_PATH = '/api/user/epay/notify';

const PRESET_AMOUNTS = [1, 5, 10, 20, 50, 100, 200, 500];

/** What top-ups need: their table, the account log a paid order writes, the payment options, the users' balances, the log. */
export type TopUpDeps = Pick<AppContext, 'db' | 'accountLogs' | 'options' | 'users' | 'log'>;

/**
 * Online top-up through Epay. The user buys whole currency units (`amount`); with the quota shown in tokens
 * (DisplayInCurrencyEnabled off) the amount is entered in tokens and must be whole units. The payable money is
 * Price × units × TopupGroupRatio[group], exactly to the cent; the quota credited is units × QuotaPerUnit.
 */
export class TopUpService {
  readonly store: TopUpStore;

  constructor(private readonly deps: TopUpDeps) {
    this.store = new TopUpStore(deps.db, deps.accountLogs);
  }

  private get o() {
    return this.deps.options;
  }

  /** The Epay account, or undefined while any of PayAddress, EpayId, EpayKey is blank (top-up off). */
  /** Where Epay calls back: CustomCallbackAddress, else the server address ('' when neither is set). */
  epayCallbackBase(): string {
    return this.o.get('CustomCallbackAddress').trim().replace(/\/+$/, '') || (configuredServerAddress(this.o) ?? '');
  }

  /** An Epay callback signed by our merchant's key for our merchant id (top-ups' and plan orders'). */
  verifiedEpay(params: EpayParams): boolean {
    const merchant = this.merchant();
    return !!merchant && epayVerify(params, merchant.key) && params.pid === merchant.pid;
  }

  merchant(): EpayMerchant | undefined {
    const address = this.o.get('PayAddress').trim();
    const pid = this.o.get('EpayId').trim();
    const key = this.o.get('EpayKey').trim();
    return address && pid && key ? { address, pid, key } : undefined;
  }

  get inTokens(): boolean {
    return !this.o.bool('DisplayInCurrencyEnabled');
  }

  private get quotaPerUnit(): number {
    return this.o.num('QuotaPerUnit');
  }

  /** A minimum in units (MinTopUp by default) in the unit the user types (tokens when the quota is shown in tokens). */
  minAmount(min = this.o.num('MinTopUp')): number {
    return this.inTokens ? Number(roundToInt(mul(dec(min), dec(this.quotaPerUnit)))) : min;
  }

  groupRatio(group: string): number {
    const ratio = this.o.json<Record<string, number>>('TopupGroupRatio')[group];
    return ratio !== undefined && ratio > 0 ? ratio : 1;
  }

  /**
   * Whole currency units for a typed amount, with the minimum (`minUnits`, MinTopUp by default) and whole-unit rules;
   * the quota within QUOTA_MAX.
   */
  units(amount: number, minUnits?: number): number {
    const min = this.minAmount(minUnits);
    if (amount < min) throw coded(ErrorCode.TopUpMinimum, `the top-up amount cannot be less than ${min}`, { min });
    const units = this.inTokens ? amount / this.quotaPerUnit : amount;
    if (!Number.isInteger(units))
      throw coded(ErrorCode.TopUpMultiple, `the top-up amount must be a multiple of ${this.quotaPerUnit} (one unit)`, {
        unit: this.quotaPerUnit,
      });
    // An order is never worth more quota than a balance may hold (the credit is checked again when paid).
    if (this.quotaFor(units) > QUOTA_MAX)
      throw coded(ErrorCode.InputTooLarge, `the top-up amount is worth more than ${QUOTA_MAX} quota`, {
        field: 'amount',
        max: Math.floor(QUOTA_MAX / this.quotaPerUnit),
      });
    return units;
  }

  /** Price × units × group ratio, rounded half up to the cent, as text with two decimals. */
  private payable(units: number, group: string): string {
    const cents = roundToInt(
      mul(mul(mul(dec(units), dec(this.o.num('Price'))), dec(this.groupRatio(group))), dec(100)),
    );
    if (cents < 1n) throw coded(ErrorCode.TopUpAmountTooLow, AMOUNT_TOO_LOW);
    return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  }

  quotaFor(units: number): number {
    return Number(roundToInt(mul(dec(units), dec(this.quotaPerUnit))));
  }

  /** The quota an order credits: its units × QuotaPerUnit, or for Creem (new-api's rule) its amount, which is quota. */
  orderQuota(order: TopUpRow): number {
    return order.payment_method === CREEM_METHOD ? Number(order.amount) : this.quotaFor(Number(order.amount));
  }

  info(user: AuthUser) {
    const min = this.minAmount();
    const scale = this.inTokens ? this.quotaPerUnit : 1;
    return {
      enable_online_topup: this.merchant() !== undefined,
      min_topup: min,
      price: this.o.num('Price'),
      group_ratio: this.groupRatio(user.group),
      pay_methods: [
        { name: 'Alipay', type: 'zfb' },
        { name: 'WeChat Pay', type: 'wx' },
      ],
      amount_options: PRESET_AMOUNTS.map((a) => a * scale).filter((a) => a >= min && Number.isSafeInteger(a)),
      top_up_link: this.o.get('TopUpLink'),
      discount: {},
    };
  }

  /** POST /api/user/amount: the money the user would pay. */
  amount(user: AuthUser, amount: number): string {
    return this.payable(this.units(amount), user.group);
  }

  /** POST /api/user/pay: a pending order with a fresh trade number, and the signed Epay form. */
  async pay(
    user: AuthUser,
    amount: number,
    method: PaymentMethod,
  ): Promise<{ url: string; fields: Record<string, string> }> {
    const merchant = this.merchant();
    if (!merchant) throw coded(ErrorCode.TopUpDisabled, TOPUP_DISABLED);
    const units = this.units(amount);
    const money = this.payable(units, user.group);
    const serverAddress = configuredServerAddress(this.o) ?? '';
    const callback = this.epayCallbackBase();
    if (!callback) throw coded(ErrorCode.TopUpNoCallback, NO_CALLBACK_ADDRESS);
    const type = PAYMENT_METHODS[method];
    const tradeNo = `USR${user.id}NO${randomString(8)}${nowSeconds()}`;
    await this.store.insert({
      user_id: user.id,
      amount: units,
      money: Number(money),
      trade_no: tradeNo,
      payment_method: type,
      create_time: nowSeconds(),
      complete_time: 0,
      status: 'pending',
    });
    return epayPurchase(merchant, {
      type,
      outTradeNo: tradeNo,
      notifyUrl: `${callback}${NOTIFY_PATH}`,
      returnUrl: `${serverAddress || callback}/app/wallet`,
      name: `TUC${units}`,
      money,
    });
  }

  /**
   * The Epay notify: "fail" unless the signature is ours; a paid order is completed (credited once however
   * often or concurrently the notify arrives) and "success" tells Epay to stop resending.
   */
  async notify(params: EpayParams): Promise<'success' | 'fail'> {
    if (!this.verifiedEpay(params)) return 'fail';
    if (params.trade_status !== EPAY_TRADE_SUCCESS) return 'success';
    const order = await this.store.findByTradeNo(params.out_trade_no ?? '');
    if (!order) {
      this.deps.log.warn({ trade_no: params.out_trade_no }, 'epay notify for an unknown order');
      return 'fail';
    }
    if (!sameCents(params.money, order.money)) {
      this.deps.log.warn(
        { trade_no: order.trade_no, paid: params.money, expected: order.money },
        'epay notify money differs from the order',
      );
      return 'fail';
    }
    await this.complete(order);
    return 'success';
  }

  /** Credits an unpaid order once; false when it was already completed (or failed). */
  async complete(order: TopUpRow): Promise<boolean> {
    const quota = this.orderQuota(order);
    const shown = renderQuota(quota, { displayInCurrency: !this.inTokens, quotaPerUnit: this.quotaPerUnit });
    const done = await this.store
      .complete({
        tradeNo: order.trade_no,
        userId: order.user_id,
        quota,
        at: nowSeconds(),
        logContent: `online top-up succeeded, amount: ${shown}, paid: ${Number(order.money).toFixed(2)}`,
        logEvent: { kind: 'topup', quota, amount: shown, paid: Number(order.money).toFixed(2) },
      })
      .catch((err: unknown) => {
        if (err instanceof QuotaMaxExceeded) throw coded(ErrorCode.InputTooLarge, balanceCapMessage, balanceCapParams);
        throw err;
      });
    if (done) await this.deps.users.notifyChanged(order.user_id);
    return done;
  }

  /** Administrator: mark an unpaid (pending or expired) order paid (a payment confirmed outside the notify). */
  async completeByAdmin(tradeNo: string): Promise<void> {
    const order = await this.store.findByTradeNo(tradeNo);
    if (!order) throw notFound('top-up order not found', ErrorCode.TopUpOrderNotFound);
    if (order.status === 'success' || !(await this.complete(order)))
      throw coded(ErrorCode.TopUpOrderNotPending, ORDER_NOT_PENDING);
  }

  page(q: PageQuery & { keyword?: string }, userId?: number): Promise<Page<TopUpRow>> {
    return readPage(q, (w) => this.store.page({ ...w, userId, keyword: q.keyword }));
  }
}

export const topUpsOf = perContext((ctx) => new TopUpService(ctx));

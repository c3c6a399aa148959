import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { pageQuery } from './common.js';

/** One online top-up order as the API lists it (amount in whole units, money paid with two decimals). */
export const topUpRecord = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  amount: z.number().int(),
  money: z.number(),
  trade_no: z.string(),
  payment_method: z.string(),
  create_time: z.number().int(),
  complete_time: z.number().int(),
  status: z.enum(['pending', 'success', 'expired', 'failed']),
});

/** GET /api/user/topup/info: whether online top-up is on and what the top-up card needs. */
export const topUpInfo = z.object({
  enable_online_topup: z.boolean(),
  min_topup: z.number(),
  price: z.number(),
  /** The caller's group top-up ratio. */
  group_ratio: z.number(),
  /** Epay's methods, and Stripe's (type stripe, with its min_topup and color, as new-api lists it) when it is on. */
  pay_methods: z.array(
    z.object({ name: z.string(), type: z.string(), color: z.string().optional(), min_topup: z.string().optional() }),
  ),
  amount_options: z.array(z.number().int()),
  top_up_link: z.string(),
  /** Amount → price ratio for preset amounts (new-api's shape); Tollway has no such discounts, so always `{}`. */
  discount: z.record(z.string(), z.number()),
  /** Stripe Checkout is on (StripeApiSecret, StripeWebhookSecret and StripePriceId set). */
  enable_stripe_topup: z.boolean(),
  /** Stripe's minimum, in units (StripeMinTopUp). */
  stripe_min_topup: z.number(),
  /** Creem is on (CreemApiKey set and CreemProducts not empty). */
  enable_creem_topup: z.boolean(),
  /** The CreemProducts option as JSON text (new-api's shape): [{productId, name, price, currency, quota}]. */
  creem_products: z.string(),
  /** Redemption codes can be redeemed (always, here; new-api ties it to the compliance acknowledgment). */
  enable_redemption: z.boolean(),
  /** new-api's payment compliance acknowledgment (payment_setting.compliance_confirmed, terms v1). */
  payment_compliance_confirmed: z.boolean(),
  payment_compliance_terms_version: z.string(),
  /** Waffo and Waffo Pancake are not served here: always off, no methods. */
  enable_waffo_topup: z.boolean(),
  enable_waffo_pancake_topup: z.boolean(),
  waffo_pay_methods: z.null(),
});

/** The compliance terms version new-api's console confirms (payment_setting.compliance_terms_version). */
export const PAYMENT_COMPLIANCE_TERMS_VERSION = 'v1';
export const paymentComplianceBody = z.object({ confirmed: z.boolean() });

export type TopUpRecord = z.infer<typeof topUpRecord>;
export type TopUpInfo = z.infer<typeof topUpInfo>;

// Request bodies and queries of the top-up API.

/** Payment methods (the console's zfb, wx) and the Epay type names they stand for. */
export const PAYMENT_METHODS = {
  zfb: 'alipay',
  wx: 'wxpay',
  alipay: 'alipay',
  wxpay: 'wxpay',
  qqpay: 'qqpay',
} as const;
export type PaymentMethod = keyof typeof PAYMENT_METHODS;

// A refinement rather than .int(): the body validator words failed type checks as "is required".
const amount = z.coerce
  .number({ message: 'amount must be a number' })
  .min(1, 'amount must be at least 1')
  .max(1_000_000_000, 'amount is too large')
  .refine(Number.isInteger, inputRule(ErrorCode.InputNotInteger, 'amount must be a whole number'));

export const topUpAmountBody = z.object({
  amount,
  /** Sent by the console; not used. */
  top_up_code: z.string().max(64).optional(),
});

export const topUpPayBody = topUpAmountBody.extend({
  payment_method: z.enum(Object.keys(PAYMENT_METHODS) as [PaymentMethod, ...PaymentMethod[]], {
    message: 'payment_method must be zfb (Alipay) or wx (WeChat Pay)',
  }),
});

/** POST /api/user/stripe/pay and /api/user/stripe/amount (new-api's body: amount and payment_method "stripe"). */
export const stripePayBody = topUpAmountBody.extend({
  payment_method: z.literal('stripe', { message: 'payment_method must be stripe' }).default('stripe'),
});

/** POST /api/user/creem/pay: one of the CreemProducts by its productId. */
export const creemPayBody = z.object({
  product_id: z.string().trim().min(1, 'product_id is required').max(255),
  payment_method: z.literal('creem', { message: 'payment_method must be creem' }).default('creem'),
});

export const topUpListQuery = pageQuery.extend({ keyword: z.string().trim().max(255).optional() });

export const topUpCompleteBody = z.object({ trade_no: z.string().trim().min(1, 'trade_no is required').max(255) });

/** What Epay sends to the notify URL (query string or form body). */
export const epayNotifyParams = z.record(
  z.string(),
  z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v[0]! : v)),
);

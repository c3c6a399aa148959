import { pageQuery } from '@tollway/shared';
import { z } from 'zod';

/** Payment methods of spec 3 §7 (zfb, wx) and the Epay type names they stand for. */
export const PAYMENT_METHODS = { zfb: 'alipay', wx: 'wxpay', alipay: 'alipay', wxpay: 'wxpay', qqpay: 'qqpay' } as const;
export type PaymentMethod = keyof typeof PAYMENT_METHODS;

// A refinement rather than .int(): the body validator words failed type checks as "is required".
const amount = z.coerce
  .number({ message: 'amount must be a number' })
  .min(1, 'amount must be at least 1')
  .max(1_000_000_000, 'amount is too large')
  .refine(Number.isInteger, 'amount must be a whole number');

export const amountBody = z.object({
  amount,
  /** Sent by the console (spec 3 §7); not used. */
  top_up_code: z.string().max(64).optional(),
});

export const payBody = amountBody.extend({
  payment_method: z.enum(Object.keys(PAYMENT_METHODS) as [PaymentMethod, ...PaymentMethod[]], {
    message: 'payment_method must be zfb (Alipay) or wx (WeChat Pay)',
  }),
});

export const topUpListQuery = pageQuery.extend({ keyword: z.string().trim().max(255).optional() });

export const completeBody = z.object({ trade_no: z.string().trim().min(1, 'trade_no is required').max(255) });

/** What Epay sends to the notify URL (query string or form body). */
export const epayNotifyParams = z.record(z.string(), z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v[0]! : v)));

import { z } from 'zod';

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
  status: z.enum(['pending', 'success', 'expired']),
});

/** GET /api/user/topup/info: whether online top-up is on and what the top-up card needs. */
export const topUpInfo = z.object({
  enable_online_topup: z.boolean(),
  min_topup: z.number(),
  price: z.number(),
  /** The caller's group top-up ratio. */
  group_ratio: z.number(),
  pay_methods: z.array(z.object({ name: z.string(), type: z.string() })),
  amount_options: z.array(z.number().int()),
  top_up_link: z.string(),
});

export type TopUpRecord = z.infer<typeof topUpRecord>;
export type TopUpInfo = z.infer<typeof topUpInfo>;

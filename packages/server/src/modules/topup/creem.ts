import crypto from 'node:crypto';
import { ErrorCode } from '@tollway/shared';
import { z } from 'zod';
import { callExternal } from '../../lib/external-call.js';
import { coded } from '../../lib/errors.js';

/**
 * Creem's wire, as new-api speaks it: the checkout API (x-api-key, product_id, request_id = our trade number) and
 * the webhook, signed by the `creem-signature` header (lowercase hex HMAC-SHA256 of the raw body under the webhook
 * secret). Pure but for the one API call; the rules are in card-service.ts.
 */

export const CREEM_SIGNATURE_HEADER = 'creem-signature';
export const CREEM_LIVE_API = 'https://api.creem.io';
export const CREEM_TEST_API = 'https://test-api.creem.io';
/** The event of a paid checkout; others are answered 200 and ignored. */
export const CREEM_CHECKOUT_COMPLETED = 'checkout.completed';
/** Order status and type of a paid one-time purchase (a top-up). */
export const CREEM_ORDER_PAID = 'paid';
export const CREEM_ORDER_ONETIME = 'onetime';

/** One entry of the CreemProducts option: what a product costs (in its currency) and the quota it credits. */
export const creemProduct = z.object({
  productId: z.string().min(1),
  name: z.string().default(''),
  price: z.number().nonnegative(),
  currency: z.string().default('USD'),
  /** Quota credited (a safe whole number, so never past QUOTA_MAX). */
  quota: z.number().int().positive(),
});
export type CreemProduct = z.infer<typeof creemProduct>;

/** The products of CreemProducts that are well formed (a malformed entry is left out, not fatal). */
export function creemProducts(option: unknown): CreemProduct[] {
  if (!Array.isArray(option)) return [];
  return option.flatMap((p) => {
    const parsed = creemProduct.safeParse(p);
    return parsed.success ? [parsed.data] : [];
  });
}

export function creemSign(payload: Buffer, secret: string): string {
  return crypto.createHmac('sha256', secret).update(payload).digest('hex');
}

/** True when `signature` is the HMAC of `payload` under `secret` (constant time); never with an empty secret. */
export function creemVerify(payload: Buffer, signature: string, secret: string): boolean {
  if (!secret || !signature) return false;
  const given = Buffer.from(signature.trim().toLowerCase());
  const expected = Buffer.from(creemSign(payload, secret));
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** What the webhook reads of an event. */
export const creemEvent = z.object({
  id: z.string().default(''),
  eventType: z.string().default(''),
  object: z
    .object({
      request_id: z.string().default(''),
      order: z.object({ id: z.string().default(''), status: z.string().default(''), type: z.string().default('') }),
    })
    .partial()
    .default({}),
});
export type CreemEvent = z.infer<typeof creemEvent>;

export interface CreemCheckoutRequest {
  apiBase: string;
  apiKey: string;
  product: CreemProduct;
  /** Our trade number (request_id): the webhook's object.request_id. */
  reference: string;
  email: string;
  username: string;
}

const checkoutAnswer = z.object({ checkout_url: z.string().min(1), id: z.string().optional() });

/** POST /v1/checkouts; answers the checkout page's URL, or throws topup_checkout_failed. */
export async function createCreemCheckout(req: CreemCheckoutRequest): Promise<string> {
  const res = await callExternal(
    'Creem',
    `${req.apiBase}/v1/checkouts`,
    {
      method: 'POST',
      headers: { 'x-api-key': req.apiKey },
      json: {
        product_id: req.product.productId,
        request_id: req.reference,
        ...(req.email ? { customer: { email: req.email } } : {}),
        metadata: {
          username: req.username,
          reference_id: req.reference,
          product_name: req.product.name,
          quota: String(req.product.quota),
        },
      },
    },
    [req.apiKey],
  );
  const parsed = checkoutAnswer.safeParse(res.body);
  if (Math.floor(res.status / 100) !== 2 || !parsed.success)
    throw coded(ErrorCode.TopUpCheckoutFailed, `Creem did not start the payment (HTTP ${res.status})`, {
      provider: 'Creem',
    });
  return parsed.data.checkout_url;
}

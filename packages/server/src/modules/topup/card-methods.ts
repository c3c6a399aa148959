/** The payment_method of card orders in top_ups (new-api's names): the webhook of one never completes another's. */
export const STRIPE_METHOD = 'stripe';
export const CREEM_METHOD = 'creem';
export type CardMethod = typeof STRIPE_METHOD | typeof CREEM_METHOD;

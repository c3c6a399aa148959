import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { creemProducts, creemSign, creemVerify } from '../../src/modules/topup/creem.js';
import { verifyStripeEvent } from '../../src/modules/topup/stripe.js';

const secret = fc.string({ minLength: 1, maxLength: 40 });
const body = fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b));

/** The same bytes with one byte changed. */
const flipped = (b: Buffer, at: number) => {
  const copy = Buffer.from(b);
  copy[at % copy.length] = copy[at % copy.length]! ^ 0xff;
  return copy;
};

describe('Creem webhook signature', () => {
  it('verifies exactly the signed bytes under the signing secret', () => {
    fc.assert(
      fc.property(body, secret, secret, fc.nat(), (payload, key, other, at) => {
        const signature = creemSign(payload, key);
        expect(creemVerify(payload, signature, key)).toBe(true);
        expect(creemVerify(payload, signature.toUpperCase(), key)).toBe(true);
        expect(creemVerify(flipped(payload, at), signature, key)).toBe(false);
        if (other !== key) expect(creemVerify(payload, signature, other)).toBe(false);
      }),
    );
  });

  it('never verifies without a secret or a signature', () => {
    const payload = Buffer.from('{}');
    expect(creemVerify(payload, creemSign(payload, ''), '')).toBe(false);
    expect(creemVerify(payload, '', 'key')).toBe(false);
  });

  it('keeps only well-formed products', () => {
    const good = { productId: 'p', name: 'n', price: 1, currency: 'USD', quota: 10 };
    expect(
      creemProducts([good, { productId: '', price: 1, quota: 1 }, { productId: 'q', price: 1, quota: 1.5 }]),
    ).toEqual([good]);
    expect(creemProducts({ not: 'a list' })).toEqual([]);
  });
});

describe('Stripe webhook signature (the official library)', () => {
  const event = (reference: string) =>
    JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { object: 'checkout.session', client_reference_id: reference, status: 'complete' } },
    });

  it('reads a signed Checkout Session event and refuses any change to it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.nat(), (reference, at) => {
        const payload = Buffer.from(event(reference));
        const header = Stripe.webhooks.generateTestHeaderString({ payload: payload.toString(), secret: 'whsec_x' });
        expect(verifyStripeEvent(payload, header, 'whsec_x')).toMatchObject({
          type: 'checkout.session.completed',
          reference,
          status: 'complete',
        });
        expect(verifyStripeEvent(payload, header, 'whsec_y')).toBeUndefined();
        expect(verifyStripeEvent(flipped(payload, at), header, 'whsec_x')).toBeUndefined();
      }),
      { numRuns: 50 },
    );
  });

  it('refuses a signature older than the tolerance', () => {
    const payload = event('ref_old');
    const old = Math.floor(Date.now() / 1000) - 3600;
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_x', timestamp: old });
    expect(verifyStripeEvent(Buffer.from(payload), header, 'whsec_x')).toBeUndefined();
  });
});

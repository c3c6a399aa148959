import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Client, TestApp } from './app.js';

/** A Checkout Session event as Stripe sends it, for the order `reference` (paid and complete unless told). */
export function stripeSessionEvent(type: string, reference: string, session: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    type,
    data: {
      object: {
        id: 'cs_test_plan',
        object: 'checkout.session',
        mode: 'subscription',
        client_reference_id: reference,
        status: 'complete',
        payment_status: 'paid',
        amount_total: 999,
        currency: 'usd',
        ...session,
      },
    },
  });
}

/** A checkout.completed event as Creem sends it for the order `reference` (a paid recurring order unless told). */
export function creemCompletedEvent(reference: string, order: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    eventType: 'checkout.completed',
    created_at: Date.now(),
    object: {
      id: 'ch_plan',
      object: 'checkout',
      request_id: reference,
      order: { id: 'ord_plan', amount: 999, currency: 'USD', status: 'paid', type: 'recurring', ...order },
      product: { id: 'prod_plan', name: 'Pro' },
      customer: { id: 'cust_1', email: 'buyer@example.com', name: 'Buyer' },
      status: 'completed',
      metadata: { reference_id: reference },
    },
  });
}

/** Reads of the plan tables a payment test asserts on. */
export function planPaymentReads(t: TestApp) {
  const k = () => t.database.db.kysely;
  return {
    /** How many subscriptions the user holds of the plan (any status). */
    async held(userId: number, planId: number): Promise<number> {
      const row = await k()
        .selectFrom('user_subscriptions')
        .select(sql<string>`count(*)`.as('n'))
        .where('user_id', '=', userId)
        .where('plan_id', '=', planId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The sources of the user's subscriptions of the plan. */
    async sources(userId: number, planId: number): Promise<string[]> {
      const rows = await k()
        .selectFrom('user_subscriptions')
        .select('source')
        .where('user_id', '=', userId)
        .where('plan_id', '=', planId)
        .execute();
      return rows.map((r) => r.source);
    },
    order(tradeNo: string) {
      return k()
        .selectFrom('subscription_orders')
        .selectAll()
        .where('trade_no', '=', tradeNo)
        .executeTakeFirstOrThrow();
    },
    async orderCount(): Promise<number> {
      const row = await k()
        .selectFrom('subscription_orders')
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The user's top-up log lines (type 1) that name a subscription purchase. */
    async planLogs(userId: number): Promise<number> {
      const row = await k()
        .selectFrom('logs')
        .select(sql<string>`count(*)`.as('n'))
        .where('type', '=', 1)
        .where('user_id', '=', userId)
        .where('content', 'like', 'subscription bought:%')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

/** Sets one option as root; the test fails when it is refused. */
export async function setOption(root: Client, key: string, value: string): Promise<void> {
  const res = await root.call('PUT', '/api/option/', { key, value });
  expect(res.body.success, res.body.message).toBe(true);
}

/** A refusal: success false and a message containing `message`. */
export function expectRefused(res: { body: { success: boolean; message: string } }, message: string): void {
  expect(res.body.success, res.body.message).toBe(false);
  expect(res.body.message).toContain(message);
}

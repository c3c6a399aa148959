import {
  billingPreferenceBody,
  BILLING_PREFERENCES,
  idParam,
  subscriptionBindBody,
  subscriptionPlan,
  subscriptionPlanBody,
  subscriptionPlanIdBody,
  subscriptionPlanStatusBody,
  subscriptionSelf,
  userSubscription,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { holdingsOf } from './holdings.js';
import { plansOf } from './plans.js';
import { subscriptionPaymentRoutes } from './routes-payments.js';

const planList = z.array(z.object({ plan: subscriptionPlan }));
const subscriptionList = z.array(z.object({ subscription: userSubscription }));
const maybeMessage = z.object({ message: z.string() }).nullable();

/**
 * Subscription plans (new-api's /api/subscription/*): users' plans and preference, root's plans and bindings, and
 * paying for a plan through a provider (routes-payments.ts).
 */
export function subscriptionRoutes(r: Router): void {
  const tags = ['subscription'];
  r.add({
    method: 'GET',
    url: '/api/subscription/plans',
    level: 'user',
    summary: 'Plans on sale (enabled), by sort_order then newest',
    tags,
    response: planList,
    handler: ({ ctx }) => plansOf(ctx).list(true),
  });
  r.add({
    method: 'GET',
    url: '/api/subscription/self',
    level: 'user',
    summary: "The caller's billing preference, active subscriptions and all subscriptions (with ended ones)",
    tags,
    response: subscriptionSelf,
    handler: ({ ctx, user }) => holdingsOf(ctx).self(user!.id),
  });
  r.add({
    method: 'PUT',
    url: '/api/subscription/self/preference',
    level: 'user',
    summary: `What calls draw from: ${BILLING_PREFERENCES.join(', ')} (anything else: subscription_first)`,
    tags,
    body: billingPreferenceBody,
    response: z.object({ billing_preference: z.enum(BILLING_PREFERENCES) }),
    handler: ({ ctx, user, body }) => holdingsOf(ctx).setPreference(user!.id, body.billing_preference),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/balance/pay',
    level: 'user',
    rateLimit: 'critical',
    summary: 'Buy a plan with wallet quota (price × QuotaPerUnit, rounded up), when the plan allows it',
    tags,
    body: subscriptionPlanIdBody,
    response: z.null(),
    handler: ({ ctx, user, body }) => holdingsOf(ctx).buyWithBalance(user!.id, body.plan_id),
  });

  r.add({
    method: 'GET',
    url: '/api/subscription/admin/plans',
    level: 'admin',
    summary: 'Every plan, enabled or not',
    tags,
    response: planList,
    handler: ({ ctx }) => plansOf(ctx).list(false),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/admin/plans',
    level: 'admin',
    summary: 'Create a plan ({plan: {...}}); returns it',
    tags,
    body: subscriptionPlanBody,
    response: subscriptionPlan,
    handler: ({ ctx, body }) => plansOf(ctx).create(body.plan),
  });
  r.add({
    method: 'PUT',
    url: '/api/subscription/admin/plans/:id',
    level: 'admin',
    summary: 'Edit a plan (every field; held subscriptions keep the quota and end they were granted)',
    tags,
    params: idParam,
    body: subscriptionPlanBody,
    response: z.null(),
    handler: ({ ctx, params, body }) => plansOf(ctx).update(params.id, body.plan),
  });
  r.add({
    method: 'PATCH',
    url: '/api/subscription/admin/plans/:id',
    level: 'admin',
    summary: 'Put a plan on sale or take it off ({enabled})',
    tags,
    params: idParam,
    body: subscriptionPlanStatusBody,
    response: z.null(),
    handler: ({ ctx, params, body }) => plansOf(ctx).setEnabled(params.id, body.enabled),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/admin/bind',
    level: 'admin',
    summary: 'Grant a plan to a user without payment ({user_id, plan_id})',
    tags,
    body: subscriptionBindBody,
    response: maybeMessage,
    handler: ({ ctx, body }) => holdingsOf(ctx).bind(body.user_id, body.plan_id),
  });
  r.add({
    method: 'GET',
    url: '/api/subscription/admin/users/:id/subscriptions',
    level: 'admin',
    summary: "A user's subscriptions, the latest ending first",
    tags,
    params: idParam,
    response: subscriptionList,
    handler: ({ ctx, params }) => holdingsOf(ctx).ofUser(params.id),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/admin/users/:id/subscriptions',
    level: 'admin',
    summary: 'Grant a plan to this user without payment ({plan_id})',
    tags,
    params: idParam,
    body: subscriptionPlanIdBody,
    response: maybeMessage,
    handler: ({ ctx, params, body }) => holdingsOf(ctx).bind(params.id, body.plan_id),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/admin/user_subscriptions/:id/invalidate',
    level: 'admin',
    summary: 'End a subscription now (cancelled); the group its plan upgraded is restored',
    tags,
    params: idParam,
    response: maybeMessage,
    handler: ({ ctx, params }) => holdingsOf(ctx).invalidate(params.id),
  });
  r.add({
    method: 'DELETE',
    url: '/api/subscription/admin/user_subscriptions/:id',
    level: 'admin',
    summary: 'Delete a subscription record; the group its plan upgraded is restored',
    tags,
    params: idParam,
    response: maybeMessage,
    handler: ({ ctx, params }) => holdingsOf(ctx).remove(params.id),
  });
  subscriptionPaymentRoutes(r);
}

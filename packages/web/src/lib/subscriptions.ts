import { useQuery } from '@tanstack/react-query';
import {
  subscriptionPlan,
  subscriptionSelf,
  userSubscription,
  type BillingPreference,
  type SubscriptionPlan,
  type SubscriptionPlanInput,
  type SubscriptionSelf,
  type UserSubscription,
} from '@tollway/shared';
import { z } from 'zod';
import { api, apiDelete, apiGet, apiPost, apiPut } from './api';

/**
 * The subscription API (`/api/subscription/*`) as the console calls it: the admin plans page, the users page's
 * subscriptions dialog and the wallet's plans card share these calls. Answers are read through the shared schemas.
 */
export const SUBSCRIPTIONS_KEY = ['subscriptions'] as const;
export const ADMIN_PLANS_KEY = [...SUBSCRIPTIONS_KEY, 'admin', 'plans'] as const;
export const PLANS_KEY = [...SUBSCRIPTIONS_KEY, 'plans'] as const;
export const SELF_SUBSCRIPTIONS_KEY = [...SUBSCRIPTIONS_KEY, 'self'] as const;
export const userSubscriptionsKey = (userId: number) => [...SUBSCRIPTIONS_KEY, 'user', userId] as const;

const planList = z.array(z.object({ plan: subscriptionPlan }));
const subscriptionList = z.array(z.object({ subscription: userSubscription }));

const plansOf = (data: unknown): SubscriptionPlan[] => planList.parse(data ?? []).map((p) => p.plan);
const subscriptionsOf = (data: unknown): UserSubscription[] =>
  subscriptionList.parse(data ?? []).map((s) => s.subscription);

/** Every plan, enabled or not (GET /api/subscription/admin/plans). */
export function useAdminPlans(enabled = true) {
  return useQuery({
    queryKey: ADMIN_PLANS_KEY,
    queryFn: async () => plansOf(await apiGet<unknown>('/api/subscription/admin/plans')),
    enabled,
  });
}

/** The plans on sale (GET /api/subscription/plans). */
export function usePlans() {
  return useQuery({
    queryKey: PLANS_KEY,
    queryFn: async () => plansOf(await apiGet<unknown>('/api/subscription/plans')),
  });
}

/** Group names, for a plan's upgrade group (GET /api/group/; the users page's cache entry). */
export function useGroupNames(enabled = true) {
  return useQuery({
    queryKey: ['groups'],
    queryFn: async () => (await apiGet<string[]>('/api/group/')) ?? [],
    enabled,
    staleTime: 60_000,
  });
}

/** The caller's billing preference and subscriptions (GET /api/subscription/self). */
export function useSubscriptionSelf() {
  return useQuery({
    queryKey: SELF_SUBSCRIPTIONS_KEY,
    queryFn: async (): Promise<SubscriptionSelf> =>
      subscriptionSelf.parse(await apiGet<unknown>('/api/subscription/self')),
  });
}

/** A user's subscriptions, every status (GET /api/subscription/admin/users/:id/subscriptions). */
export function useUserSubscriptions(userId: number | null) {
  return useQuery({
    queryKey: userSubscriptionsKey(userId ?? 0),
    queryFn: async () =>
      subscriptionsOf(await apiGet<unknown>(`/api/subscription/admin/users/${userId}/subscriptions`)),
    enabled: userId !== null,
  });
}

export const createPlan = (plan: SubscriptionPlanInput) =>
  apiPost<SubscriptionPlan>('/api/subscription/admin/plans', { plan });

export const updatePlan = (id: number, plan: SubscriptionPlanInput) =>
  apiPut<null>(`/api/subscription/admin/plans/${id}`, { plan });

export const setPlanEnabled = (id: number, enabled: boolean) =>
  api<null>('PATCH', `/api/subscription/admin/plans/${id}`, { enabled });

/** The server's note on an admin action on a user's subscription (e.g. the group it changed), if any. */
const noteOf = (data: { message?: string } | null | undefined): string | undefined =>
  data && typeof data.message === 'string' && data.message !== '' ? data.message : undefined;

/** Gives a user a plan without payment; the server's note, if any. */
export const bindPlan = async (userId: number, planId: number) =>
  noteOf(
    (
      await apiPost<{ message?: string } | null>(`/api/subscription/admin/users/${userId}/subscriptions`, {
        plan_id: planId,
      })
    ).data,
  );

export const invalidateSubscription = async (id: number) =>
  noteOf(
    (await apiPost<{ message?: string } | null>(`/api/subscription/admin/user_subscriptions/${id}/invalidate`)).data,
  );

export const deleteSubscription = async (id: number) =>
  noteOf((await apiDelete<{ message?: string } | null>(`/api/subscription/admin/user_subscriptions/${id}`)).data);

export const setBillingPreference = (preference: BillingPreference) =>
  apiPut<{ billing_preference: BillingPreference }>('/api/subscription/self/preference', {
    billing_preference: preference,
  });

/** Buys a plan with the wallet balance (price × QuotaPerUnit). */
export const payWithBalance = (planId: number) => apiPost<null>('/api/subscription/balance/pay', { plan_id: planId });

/** The Epay form (fields) for a plan and where to post it, as the top-up's Epay call answers. */
export async function payWithEpay(
  planId: number,
  paymentMethod: string,
): Promise<{ url?: string; data?: Record<string, string> }> {
  const res = await apiPost<Record<string, string>>('/api/subscription/epay/pay', {
    plan_id: planId,
    payment_method: paymentMethod,
  });
  // The address sits beside the envelope's data (new-api's shape).
  return res as unknown as { url?: string; data?: Record<string, string> };
}

/** Stripe Checkout's page for a plan. */
export const payWithStripe = async (planId: number) =>
  (await apiPost<{ pay_link: string }>('/api/subscription/stripe/pay', { plan_id: planId })).data?.pay_link;

/** Creem's checkout page for a plan. */
export const payWithCreem = async (planId: number) =>
  (await apiPost<{ checkout_url: string; order_id: string }>('/api/subscription/creem/pay', { plan_id: planId })).data
    ?.checkout_url;

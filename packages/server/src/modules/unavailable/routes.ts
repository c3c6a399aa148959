import { ErrorCode } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { unavailableAnswers } from './refuse.js';

export const PASSKEY_UNAVAILABLE = 'passkeys are not available on this server';
export const SUBSCRIPTION_UNAVAILABLE = 'subscriptions are not available on this server';
export const PREFILL_UNAVAILABLE = 'prefill groups are not available on this server';

/**
 * Features of new-api's console this gateway does not have (passkeys, subscriptions, prefill groups): polling
 * answers empty, actions answer success:false saying the feature is absent (see refuse.ts).
 */
export function unavailableRoutes(r: Router): void {
  const { empty, refuse } = unavailableAnswers(r);
  const passkey = ErrorCode.PasskeyUnavailable;
  const subscription = ErrorCode.SubscriptionUnavailable;
  const prefill = ErrorCode.PrefillUnavailable;

  empty('GET', '/api/user/passkey', 'user', 'Passkey status: never enabled (passkeys are not available)', () => ({
    enabled: false,
  }));
  for (const url of [
    '/api/user/passkey/register/begin',
    '/api/user/passkey/register/finish',
    '/api/user/passkey/verify/begin',
    '/api/user/passkey/verify/finish',
  ]) {
    refuse('POST', url, 'user', PASSKEY_UNAVAILABLE, passkey);
  }
  refuse('DELETE', '/api/user/passkey', 'user', PASSKEY_UNAVAILABLE, passkey);
  refuse('POST', '/api/user/passkey/login/begin', 'public', PASSKEY_UNAVAILABLE, passkey);
  refuse('POST', '/api/user/passkey/login/finish', 'public', PASSKEY_UNAVAILABLE, passkey);
  refuse('DELETE', '/api/user/:id/reset_passkey', 'admin', PASSKEY_UNAVAILABLE, passkey);

  empty(
    'GET',
    '/api/subscription/plans',
    'user',
    'Subscription plans: none (subscriptions are not available)',
    () => [],
  );
  empty(
    'GET',
    '/api/subscription/self',
    'user',
    "The caller's subscriptions: none; billing is from the wallet only",
    () => ({
      billing_preference: 'wallet_only',
      subscriptions: [],
      all_subscriptions: [],
    }),
  );
  empty(
    'GET',
    '/api/subscription/admin/plans',
    'admin',
    'Subscription plans: none (subscriptions are not available)',
    () => [],
  );
  refuse('PUT', '/api/subscription/self/preference', 'user', SUBSCRIPTION_UNAVAILABLE, subscription);
  for (const url of ['/api/subscription/epay/pay', '/api/subscription/stripe/pay', '/api/subscription/creem/pay'])
    refuse('POST', url, 'user', SUBSCRIPTION_UNAVAILABLE, subscription);
  refuse('POST', '/api/subscription/admin/plans', 'admin', SUBSCRIPTION_UNAVAILABLE, subscription);
  refuse('PUT', '/api/subscription/admin/plans/:id', 'admin', SUBSCRIPTION_UNAVAILABLE, subscription);
  refuse('PATCH', '/api/subscription/admin/plans/:id', 'admin', SUBSCRIPTION_UNAVAILABLE, subscription);
  refuse('POST', '/api/subscription/admin/bind', 'admin', SUBSCRIPTION_UNAVAILABLE, subscription);
  empty('GET', '/api/subscription/admin/users/:id/subscriptions', 'admin', "A user's subscriptions: none", () => []);
  refuse('POST', '/api/subscription/admin/users/:id/subscriptions', 'admin', SUBSCRIPTION_UNAVAILABLE, subscription);
  refuse(
    'POST',
    '/api/subscription/admin/user_subscriptions/:id/invalidate',
    'admin',
    SUBSCRIPTION_UNAVAILABLE,
    subscription,
  );
  refuse('DELETE', '/api/subscription/admin/user_subscriptions/:id', 'admin', SUBSCRIPTION_UNAVAILABLE, subscription);
  // The payment provider's callbacks of a subscription purchase: there is never one to confirm.
  for (const method of ['GET', 'POST'] as const)
    for (const url of ['/api/subscription/epay/notify', '/api/subscription/epay/return'])
      refuse(method, url, 'public', SUBSCRIPTION_UNAVAILABLE, subscription);

  empty(
    'GET',
    '/api/prefill_group/',
    'admin',
    'Prefill groups (templates of model lists): none, ?type is accepted and ignored',
    () => [],
  );
  refuse('POST', '/api/prefill_group/', 'admin', PREFILL_UNAVAILABLE, prefill);
  refuse('PUT', '/api/prefill_group/', 'admin', PREFILL_UNAVAILABLE, prefill);
  refuse('DELETE', '/api/prefill_group/:id', 'admin', PREFILL_UNAVAILABLE, prefill);
}

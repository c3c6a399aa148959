import { ErrorCode, type AccessLevel } from '@tollway/shared';
import { refused } from '../../lib/errors.js';
import type { Method, Router } from '../../http/route.js';

export const PASSKEY_UNAVAILABLE = 'passkeys are not available on this server';
export const SUBSCRIPTION_UNAVAILABLE = 'subscriptions are not available on this server';
export const PREFILL_UNAVAILABLE = 'prefill groups are not available on this server';
const CODE_OF: Record<string, ErrorCode> = {
  [PASSKEY_UNAVAILABLE]: ErrorCode.PasskeyUnavailable,
  [SUBSCRIPTION_UNAVAILABLE]: ErrorCode.SubscriptionUnavailable,
  [PREFILL_UNAVAILABLE]: ErrorCode.PrefillUnavailable,
};

/**
 * Features of new-api's console this gateway does not have (passkeys, subscriptions, prefill groups). The calls
 * the console makes on its own (status and list polling) answer success with an empty value, so no error is
 * shown; the calls a person makes on purpose answer success:false with a message saying the feature is absent.
 */
export function unavailableRoutes(r: Router): void {
  const empty = (method: Method, url: string, level: AccessLevel, summary: string, value: () => unknown) =>
    r.add({ method, url, level, summary, tags: ['unavailable'], handler: value });
  const refuse = (method: Method, url: string, level: AccessLevel, message: string) =>
    r.add({
      method,
      url,
      level,
      summary: `Not available: answers success:false, "${message}"`,
      tags: ['unavailable'],
      audit: false,
      handler: () => {
        throw refused(message, CODE_OF[message]);
      },
    });

  empty('GET', '/api/user/passkey', 'user', 'Passkey status: never enabled (passkeys are not available)', () => ({
    enabled: false,
  }));
  for (const url of [
    '/api/user/passkey/register/begin',
    '/api/user/passkey/register/finish',
    '/api/user/passkey/verify/begin',
    '/api/user/passkey/verify/finish',
  ]) {
    refuse('POST', url, 'user', PASSKEY_UNAVAILABLE);
  }
  refuse('DELETE', '/api/user/passkey', 'user', PASSKEY_UNAVAILABLE);
  refuse('POST', '/api/user/passkey/login/begin', 'public', PASSKEY_UNAVAILABLE);
  refuse('POST', '/api/user/passkey/login/finish', 'public', PASSKEY_UNAVAILABLE);
  refuse('DELETE', '/api/user/:id/reset_passkey', 'admin', PASSKEY_UNAVAILABLE);

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
  refuse('PUT', '/api/subscription/self/preference', 'user', SUBSCRIPTION_UNAVAILABLE);
  for (const url of ['/api/subscription/epay/pay', '/api/subscription/stripe/pay', '/api/subscription/creem/pay'])
    refuse('POST', url, 'user', SUBSCRIPTION_UNAVAILABLE);
  refuse('POST', '/api/subscription/admin/plans', 'admin', SUBSCRIPTION_UNAVAILABLE);
  refuse('POST', '/api/subscription/admin/bind', 'admin', SUBSCRIPTION_UNAVAILABLE);
  empty('GET', '/api/subscription/admin/users/:id/subscriptions', 'admin', "A user's subscriptions: none", () => []);

  empty(
    'GET',
    '/api/prefill_group/',
    'admin',
    'Prefill groups (templates of model lists): none, ?type is accepted and ignored',
    () => [],
  );
  refuse('POST', '/api/prefill_group/', 'admin', PREFILL_UNAVAILABLE);
  refuse('PUT', '/api/prefill_group/', 'admin', PREFILL_UNAVAILABLE);
  refuse('DELETE', '/api/prefill_group/:id', 'admin', PREFILL_UNAVAILABLE);
}

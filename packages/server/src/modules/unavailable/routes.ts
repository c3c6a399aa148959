import { ErrorCode } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { unavailableAnswers } from './refuse.js';

export const PASSKEY_UNAVAILABLE = 'passkeys are not available on this server';
export const PREFILL_UNAVAILABLE = 'prefill groups are not available on this server';

/**
 * Features of new-api's console this gateway does not have (passkeys, prefill groups): polling
 * answers empty, actions answer success:false saying the feature is absent (see refuse.ts).
 */
export function unavailableRoutes(r: Router): void {
  const { empty, refuse } = unavailableAnswers(r);
  const passkey = ErrorCode.PasskeyUnavailable;
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
    '/api/prefill_group/',
    'admin',
    'Prefill groups (templates of model lists): none, ?type is accepted and ignored',
    () => [],
  );
  refuse('POST', '/api/prefill_group/', 'admin', PREFILL_UNAVAILABLE, prefill);
  refuse('PUT', '/api/prefill_group/', 'admin', PREFILL_UNAVAILABLE, prefill);
  refuse('DELETE', '/api/prefill_group/:id', 'admin', PREFILL_UNAVAILABLE, prefill);
}

import { ErrorCode } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { unavailableAnswers } from './refuse.js';

export const PREFILL_UNAVAILABLE = 'prefill groups are not available on this server';

/**
 * Features of new-api's console this gateway does not have (prefill groups): polling
 * answers empty, actions answer success:false saying the feature is absent (see refuse.ts).
 */
export function unavailableRoutes(r: Router): void {
  const { empty, refuse } = unavailableAnswers(r);
  const prefill = ErrorCode.PrefillUnavailable;

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

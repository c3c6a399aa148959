import type { AccessLevel, ErrorCode, ErrorParams } from '@tollway/shared';
import { refused } from '../../lib/errors.js';
import type { Method, Router } from '../../http/route.js';

/**
 * The two answers of a feature this gateway does not have: `empty` for the calls the console makes on its own
 * (status and list polling: success with an empty value, so no error is shown), `refuse` for the calls a person
 * makes on purpose (new-api's success:false with a message, and a code, saying the feature is absent).
 */
export function unavailableAnswers(r: Router) {
  return {
    empty(method: Method, url: string, level: AccessLevel, summary: string, value: () => unknown): void {
      r.add({ method, url, level, summary, tags: ['unavailable'], handler: value });
    },
    refuse(
      method: Method,
      url: string,
      level: AccessLevel,
      message: string,
      code: ErrorCode,
      params?: ErrorParams,
    ): void {
      r.add({
        method,
        url,
        level,
        summary: `Not available: answers success:false, "${message}"`,
        tags: ['unavailable'],
        audit: false,
        handler: () => {
          throw refused(message, code, params);
        },
      });
    },
  };
}

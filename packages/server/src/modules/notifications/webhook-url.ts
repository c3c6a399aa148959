import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { checkUserUrl } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import type { OptionsService } from '../../core/options/service.js';

/** Refuses a webhook URL the fetch settings would block, with the reason, when a user saves it. */
export async function assertWebhookUrlAllowed(options: OptionsService, url: string): Promise<void> {
  try {
    await checkUserUrl(fetchPolicy(options), url);
  } catch (err) {
    if (err instanceof OutboundBlockedError)
      throw coded(ErrorCode.WebhookUrlBlocked, `webhook_url is not allowed: ${err.message}`, err.reasonParams());
    throw err;
  }
}

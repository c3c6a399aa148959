import { z } from 'zod';
import { logEvent } from './log-event.js';

/** A key of `other`: optional, and dropped (not the whole object) when a stored row holds another type. */
const opt = <T extends z.ZodType>(t: T) => t.optional().catch(undefined);
const num = opt(z.number());
const str = opt(z.string());
const bool = opt(z.boolean());

/**
 * The JSON kept in a log's `other` column: written by the relay when it settles a call (pricing, timing,
 * mapping, the chat text with LogChatContentEnabled) or logs a failed one (status, error, channel), read by
 * the console's logs page. Every key is optional.
 */
export const logOther = z.object({
  /** Pricing of a consume log: ratios, or a fixed model price (-1 when priced by ratios). */
  model_ratio: num,
  model_price: num,
  completion_ratio: num,
  cache_ratio: num,
  cache_tokens: num,
  cache_creation_tokens: num,
  cache_creation_ratio: num,
  group_ratio: num,
  user_group_ratio: num,
  /** Milliseconds to the first byte of the answer. */
  frt: num,
  is_model_mapped: bool,
  upstream_model_name: str,
  reasoning_effort: str,
  /** False when the gateway counted the tokens itself. */
  usage_reported: bool,
  ratio_unset: bool,
  fallback_pricing: bool,
  /** With redirect billing: the mapped model the call was billed at. */
  billed_model: str,
  /** The model the caller asked for, when a fallback model served the call, and why it moved (5xx, 429, timeout, context_length). */
  fallback_from: str,
  fallback_reason: str,
  /** An expression-priced call (new-api's names): 'tiered_expr', the expression (base64) and the tier it named. */
  billing_mode: str,
  expr_b64: str,
  matched_tier: str,
  /** The expression failed for this call's counts: it was charged its reservation. */
  billing_expr_error: str,
  /** Tools the provider ran (web search …), by tool price name, and the quota they were charged. */
  tool_calls: opt(z.record(z.string(), z.number())),
  tool_quota: num,
  /** Units billed at a per-call price (images, audio minutes, 1K characters). */
  billed_units: num,
  /** What paid (new-api's names): 'wallet' or 'subscription', the user's preference, and with a plan which one. */
  billing_source: str,
  billing_preference: str,
  subscription_id: num,
  subscription_plan_id: num,
  subscription_plan_title: str,
  subscription_total: num,
  subscription_pre_consumed: num,
  subscription_post_delta: num,
  subscription_consumed: num,
  wallet_quota_deducted: num,
  /** Quota the balance could not cover when the call settled. */
  charge_shortfall: num,
  /** The call never settled (the process stopped first): billed at its reservation. */
  billed_at_reservation: bool,
  /** Answered from the response cache (no upstream call); billed at the cache's share of the price. */
  cache_hit: bool,
  /** Administrators only: the channels tried and the upstream's own error text (callers get a generic one). */
  admin_info: opt(
    z.object({
      use_channel: opt(z.array(z.union([z.number(), z.string()]))),
      error_detail: str,
      /** The call's channel affinity session: the rule, the key's source and fingerprint, the channel it went to. */
      channel_affinity: opt(z.record(z.string(), z.unknown())),
    }),
  ),
  /** An error log's failure. */
  error_type: str,
  error_code: opt(z.union([z.string(), z.number()])),
  status_code: num,
  channel_id: num,
  channel_name: str,
  /** With LogChatContentEnabled: the prompt and the answer text, capped by the server. */
  input_content: str,
  output_content: str,
  /** A task's consume log: the upstream task id and its action (IMAGINE, MUSIC, …). */
  task_id: str,
  task_action: str,
  /** A task's refund log (failed or timed out): the quota given back. */
  task_refund: num,
  /** An account event (check-in, top-up, redemption, balance change, invite): its text's fields. */
  event: opt(logEvent),
});
export type LogOther = z.infer<typeof logOther>;

/** Keys of `other` only administrators see (which channels served or failed the call). */
export const LOG_OTHER_ADMIN_KEYS = [
  'admin_info',
  'channel_id',
  'channel_name',
] as const satisfies readonly (keyof LogOther)[];

/** `other` parsed; {} when it is empty or not a JSON object. */
export function parseLogOther(text: string): LogOther {
  if (!text) return {};
  try {
    const parsed = logOther.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

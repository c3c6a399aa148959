/** A refusal or failure of a relay call, answered in the caller's protocol's error shape. */
export class RelayError extends Error {
  /** Extra response headers (a rate limit's retry-after and x-ratelimit-*). */
  headers: import('node:http').OutgoingHttpHeaders | undefined;

  constructor(
    public readonly status: number,
    message: string,
    public readonly type = 'tollway_error',
    public readonly code: string | null = null,
    /** The request field at fault (OpenAI's `param`). */
    public readonly param: string | null = null,
  ) {
    super(message);
  }
}

/**
 * A model the caller cannot use (not served in its group, unpriced, outside the token's models) is a 404, as
 * OpenAI, Anthropic and Gemini answer it: final, so no SDK retries it; the `code` says which.
 */
const MODEL_UNAVAILABLE = 404;
/**
 * The client closed the connection before its request was read (nginx's 499): the client's end of the call, counted
 * as a 4xx and logged at info level, never a relay failure. Nobody receives the answer.
 */
export const CLIENT_CLOSED_REQUEST = 499;

export const relayErrors = {
  noKey: () =>
    new RelayError(
      401,
      'no API token provided (Authorization: Bearer sk-…)',
      'invalid_request_error',
      'missing_api_key',
    ),
  badKey: () => new RelayError(401, 'invalid API token', 'invalid_request_error', 'invalid_api_key'),
  tokenDisabled: () => new RelayError(403, 'this API token is disabled', 'tollway_error', 'token_disabled'),
  tokenExpired: () => new RelayError(403, 'this API token has expired', 'tollway_error', 'token_expired'),
  tokenExhausted: () =>
    new RelayError(403, 'this API token has no quota left', 'insufficient_quota', 'token_quota_exhausted'),
  userBanned: () => new RelayError(403, 'user banned', 'tollway_error', 'user_banned'),
  userQuota: () => new RelayError(403, 'insufficient user quota', 'insufficient_quota', 'insufficient_user_quota'),
  /** Billing 'subscription_only': no active plan, or none with room for the call. */
  subscriptionQuota: (hasPlans: boolean) =>
    new RelayError(
      403,
      hasPlans
        ? 'subscription quota insufficient: no active plan has room for this call'
        : 'no active subscription: your billing preference draws from subscriptions only',
      'insufficient_quota',
      'insufficient_user_quota',
    ),
  groupWithdrawn: (group: string) =>
    new RelayError(
      403,
      `this API token's group ${group} is no longer available to you; choose another group for the token`,
      'tollway_error',
      'group_not_allowed',
    ),
  ipDenied: (ip: string) =>
    new RelayError(403, `this API token cannot be used from ${ip}`, 'tollway_error', 'ip_not_allowed'),
  modelNotAllowed: (model: string) =>
    new RelayError(
      MODEL_UNAVAILABLE,
      `this API token may not use model ${model}`,
      'invalid_request_error',
      'model_not_allowed',
    ),
  noModel: () => new RelayError(400, 'model is required', 'invalid_request_error', 'missing_model'),
  badBody: (why: string) =>
    new RelayError(400, `invalid request body: ${why}`, 'invalid_request_error', 'invalid_body'),
  unpriced: (model: string) =>
    new RelayError(
      MODEL_UNAVAILABLE,
      `model ${model} has no price or ratio set; ask the administrator to set one`,
      'invalid_request_error',
      'model_price_not_set',
    ),
  /** The model's billing expression fails for this call (its save check tried sample calls only): nothing is sent. */
  priceExprFailed: (model: string, reason: string) =>
    new RelayError(
      MODEL_UNAVAILABLE,
      `the price of model ${model} cannot be computed for this request (${reason}); ask the administrator to check its billing expression`,
      'invalid_request_error',
      'model_price_error',
    ),
  /** No channel, enabled or not, serves the model in the group. */
  noChannel: (group: string, model: string) =>
    new RelayError(
      MODEL_UNAVAILABLE,
      `no available channel for model ${model} in group ${group}`,
      'invalid_request_error',
      'model_not_found',
    ),
  /** Channels serve the model in the group but none is enabled now: a retry later may succeed. */
  channelsUnavailable: (group: string, model: string) =>
    new RelayError(
      503,
      `no available channel for model ${model} in group ${group}: its channels are disabled`,
      'tollway_error',
      'no_available_channel',
    ),
  /** The estimated input is more than every channel of the model takes (max_input_tokens): final, none is tried. */
  inputTooLarge: (tokens: number, model: string, largest: number) =>
    new RelayError(
      400,
      `input of about ${tokens} tokens exceeds the limit of every channel for model ${model} (largest: ${largest})`,
      'invalid_request_error',
      'context_length_exceeded',
    ),
  clientClosed: () =>
    new RelayError(
      CLIENT_CLOSED_REQUEST,
      'the client closed the connection before the request was sent',
      'invalid_request_error',
      'client_closed_request',
    ),
  rateLimited: (what: string) =>
    new RelayError(429, `too many requests: ${what}; retry later`, 'rate_limit_error', 'rate_limited'),
  /** The token's or user's calls in flight are at their concurrency limit (relay/limits/concurrency.ts). */
  concurrencyLimited: (level: 'token' | 'user', limit: number) =>
    new RelayError(
      429,
      `too many concurrent requests: the ${level} limit of ${limit} calls in flight is reached; retry when one ends`,
      'rate_limit_error',
      'concurrency_limit_exceeded',
    ),
};

/** A request the conversion failed on: a 400 for the caller (not retried, no channel blamed); the cause is logged. */
export function unconvertible(log: { warn(obj: object, msg: string): void }, err: unknown): RelayError {
  if (err instanceof RelayError) return err;
  log.warn({ err }, 'relay: a request could not be converted');
  return new RelayError(
    400,
    'invalid request body: it cannot be converted for the upstream of this model',
    'invalid_request_error',
    'invalid_body',
  );
}

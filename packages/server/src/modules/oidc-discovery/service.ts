// Reads an OpenID provider's discovery document for root, through the outbound (SSRF) guard: the console cannot
// fetch a newly typed well-known URL itself (its connect-src allows only this site).
import { ErrorCode, type ErrorParams } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { ApiError, coded } from '../../lib/errors.js';
import { failureKind, NO_ANSWER_IN_TIME } from '../../lib/external-call.js';
import { checkUserUrl, guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import { BodyTooLarge, getJson, readCapped } from '../../lib/read-capped.js';
import {
  DISCOVERY_TIMEOUT_MS,
  MAX_DISCOVERY_BYTES,
  MAX_ENDPOINT_URL,
  type DiscoveryAnswer,
  type DiscoveryBody,
} from './schema.js';

const HTTP_URL = /^https?:\/\//i;

/**
 * A discovery that failed: the reason in English and as a code the console words (reason_code: one of the
 * oidc_reason_* codes, or the guard's own with its rule).
 */
function failed(reason: string, params: ErrorParams): ApiError {
  return coded(ErrorCode.OidcDiscoveryFailed, `cannot read the OIDC discovery document: ${reason}`, {
    reason,
    ...params,
  });
}

/** A failure of the fetch itself: no answer in time, or no connection. */
const fetchFailure = (err: unknown): ApiError => {
  const kind = failureKind(err);
  return failed(kind, {
    reason_code: kind === NO_ANSWER_IN_TIME ? ErrorCode.OidcReasonTimeout : ErrorCode.OidcReasonConnection,
  });
};

/** Why a fetch failed, without the address it connected to. */
function failureOf(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const blocked = err instanceof OutboundBlockedError ? err : (err as { cause?: unknown }).cause;
  if (blocked instanceof OutboundBlockedError) return failed(blocked.message, blocked.reasonParams());
  if (err instanceof BodyTooLarge) {
    const kb = MAX_DISCOVERY_BYTES / 1024;
    return failed(`the document is larger than ${kb} KB`, { reason_code: ErrorCode.OidcReasonTooLarge, max_kb: kb });
  }
  return fetchFailure(err);
}

const urlField = (doc: Record<string, unknown>, key: string): string => {
  const v = doc[key];
  return typeof v === 'string' && HTTP_URL.test(v) && v.length <= MAX_ENDPOINT_URL ? v : '';
};

/**
 * POST /api/oauth/oidc/discovery: the provider's issuer and endpoints from its well-known document. Redirects are
 * not followed; the answer is bounded in time and size; nothing is saved (the console fills the form).
 */
export async function discoverOidc(ctx: AppContext, body: DiscoveryBody): Promise<DiscoveryAnswer> {
  const d = await fetchDiscoveryDocument(ctx, body.well_known_url);
  const answer = {
    issuer: urlField(d, 'issuer'),
    authorization_endpoint: urlField(d, 'authorization_endpoint'),
    token_endpoint: urlField(d, 'token_endpoint'),
    userinfo_endpoint: urlField(d, 'userinfo_endpoint'),
  };
  if (!answer.authorization_endpoint && !answer.token_endpoint && !answer.userinfo_endpoint)
    throw failed('the document names no endpoint', { reason_code: ErrorCode.OidcReasonNoEndpoint });
  return answer;
}

/**
 * An OpenID provider's well-known document as a JSON object, read through the outbound guard (redirects not
 * followed, bounded in time and size); also the discovery of root-defined providers (modules/custom-oauth).
 */
export async function fetchDiscoveryDocument(ctx: AppContext, url: string): Promise<Record<string, unknown>> {
  if (!HTTP_URL.test(url))
    throw failed('only http and https URLs can be fetched', { reason_code: ErrorCode.OidcReasonNotHttp });
  try {
    await checkUserUrl(fetchPolicy(ctx.options), url);
  } catch (err) {
    throw failureOf(err);
  }
  let text: string;
  try {
    const res = await getJson(
      url,
      guardedDispatcher(() => fetchPolicy(ctx.options)),
      'Tollway-OIDC-Discovery',
      DISCOVERY_TIMEOUT_MS,
    );
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw failed(`the provider answered HTTP ${res.statusCode}`, {
        reason_code: ErrorCode.OidcReasonStatus,
        status: res.statusCode,
      });
    }
    if (Number(res.headers['content-length']) > MAX_DISCOVERY_BYTES) {
      await res.body.dump();
      throw new BodyTooLarge(MAX_DISCOVERY_BYTES);
    }
    text = await readCapped(res.body, MAX_DISCOVERY_BYTES);
  } catch (err) {
    throw failureOf(err);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw failed('the answer is not JSON', { reason_code: ErrorCode.OidcReasonNotJson });
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw failed('the answer is not a JSON object', { reason_code: ErrorCode.OidcReasonNotObject });
  return doc as Record<string, unknown>;
}
